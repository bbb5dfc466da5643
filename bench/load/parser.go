package load

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// respParser reads HTTP/1.1 responses from the bytes a connection hands
// it, as they arrive: feed takes whatever a read returned and says when a
// response is complete, so one parser serves the blocking client (a worker
// reading its connection) and the event loop (reading whatever epoll says
// is ready). It handles Content-Length, chunked and close-delimited
// bodies, 1xx interim responses (skipped; 101 ends the connection's HTTP),
// and responses without a body (HEAD, 204, 304). Bodies are counted and
// discarded, never kept; a line is at most maxLine bytes.
//
// In the common case — a whole response in one read — it parses in place
// without copying or allocating.
type respParser struct {
	head    bool // the request was HEAD: responses have no body
	st      pstate
	status  int
	keep    bool
	length  int64 // Content-Length, -1 when none
	chunked bool
	left    int64  // bytes of the body or chunk still to come
	partial []byte // an incomplete line carried over from the last feed
	n       int64  // bytes of the current response so far
}

type pstate uint8

const (
	pStatus     pstate = iota // the status line
	pHeaders                  // header lines, up to the blank one
	pBody                     // left bytes of a Content-Length body
	pUntilClose               // the body runs until the connection closes
	pChunkSize                // a chunk-size line
	pChunkData                // left bytes of chunk data
	pChunkEnd                 // the CRLF after chunk data
	pTrailers                 // trailer lines, up to the blank one
	pDone
)

// maxLine bounds a status, header or chunk-size line.
const maxLine = readBufSize

var (
	hdrContentLength    = []byte("content-length")
	hdrTransferEncoding = []byte("transfer-encoding")
	hdrConnection       = []byte("connection")
	valChunked          = []byte("chunked")
	valClose            = []byte("close")
	valKeepAlive        = []byte("keep-alive")
	http1Prefix         = []byte("HTTP/1.")
)

// protoError is a malformed response.
type protoError struct{ msg string }

func (e *protoError) Error() string { return "malformed response: " + e.msg }

// reset readies the parser for the next response.
func (p *respParser) reset() {
	p.st, p.status, p.keep, p.length, p.chunked, p.left, p.n = pStatus, 0, false, -1, false, 0, 0
	p.partial = p.partial[:0]
}

// feed consumes the bytes of b that belong to the current response: done
// says it is complete (b[consumed:] is not part of it), err that it is
// malformed.
func (p *respParser) feed(b []byte) (consumed int, done bool, err error) {
	for consumed < len(b) {
		rest := b[consumed:]
		switch p.st {
		case pBody, pChunkData:
			k := int(min(p.left, int64(len(rest))))
			p.left -= int64(k)
			consumed += k
			p.n += int64(k)
			if p.left == 0 {
				if p.st == pBody {
					p.st = pDone
					return consumed, true, nil
				}
				p.st = pChunkEnd
			}
			continue
		case pUntilClose:
			consumed += len(rest)
			p.n += int64(len(rest))
			continue
		case pDone:
			return consumed, true, nil
		}
		line, used, ok, err := p.line(rest)
		consumed += used
		p.n += int64(used)
		if err != nil {
			return consumed, false, err
		}
		if !ok {
			return consumed, false, nil // the line goes on in the next read
		}
		if done, err := p.onLine(line); err != nil || done {
			return consumed, done, err
		}
	}
	return consumed, p.st == pDone, nil
}

// line returns the next complete line of b (without its CR LF), joined to
// any carried over; ok is false when b ends inside the line (it is kept).
func (p *respParser) line(b []byte) (line []byte, used int, ok bool, err error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		if len(p.partial)+len(b) > maxLine {
			return nil, len(b), false, p.tooLong()
		}
		p.partial = append(p.partial, b...)
		return nil, len(b), false, nil
	}
	line = b[:i]
	if len(p.partial) > 0 {
		if len(p.partial)+i > maxLine {
			return nil, i + 1, false, p.tooLong()
		}
		p.partial = append(p.partial, line...)
		line = p.partial
		p.partial = p.partial[:0] // line is used before the next append
	} else if i > maxLine {
		return nil, i + 1, false, p.tooLong()
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, i + 1, true, nil
}

func (p *respParser) tooLong() error {
	return &protoError{fmt.Sprintf("line longer than %d KiB", maxLine>>10)}
}

// onLine takes one complete line in the states that read lines.
func (p *respParser) onLine(l []byte) (done bool, err error) {
	switch p.st {
	case pStatus:
		if len(l) < 12 || !bytes.HasPrefix(l, http1Prefix) || l[8] != ' ' {
			return false, &protoError{fmt.Sprintf("status line %q", truncate(l))}
		}
		p.status, p.keep, p.length, p.chunked = 0, l[7] == '1', -1, false // HTTP/1.1 keeps alive by default; 1.0 does not
		for _, c := range l[9:12] {
			if c < '0' || c > '9' {
				return false, &protoError{fmt.Sprintf("status line %q", truncate(l))}
			}
			p.status = p.status*10 + int(c-'0')
		}
		p.st = pHeaders
	case pHeaders:
		if len(l) == 0 {
			return p.bodyStart(), nil
		}
		i := bytes.IndexByte(l, ':')
		if i <= 0 {
			return false, &protoError{fmt.Sprintf("header %q", truncate(l))}
		}
		name, val := l[:i], l[i+1:]
		switch n := len(name); {
		case n != len(hdrContentLength) && n != len(hdrTransferEncoding) && n != len(hdrConnection):
			// none of the three this parser reads (most headers): no case folding
		case bytes.EqualFold(name, hdrContentLength):
			val = bytes.TrimSpace(val)
			n, err := strconv.ParseInt(string(val), 10, 64) // no allocation: the conversion is optimised away
			if err != nil || n < 0 {
				return false, &protoError{fmt.Sprintf("Content-Length %q", truncate(val))}
			}
			p.length = n
		case bytes.EqualFold(name, hdrTransferEncoding):
			p.chunked = containsFold(val, valChunked)
		case bytes.EqualFold(name, hdrConnection):
			if containsFold(val, valClose) {
				p.keep = false
			} else if containsFold(val, valKeepAlive) {
				p.keep = true
			}
		}
	case pChunkSize:
		if i := bytes.IndexByte(l, ';'); i >= 0 {
			l = l[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(l)), 16, 64)
		if err != nil || size < 0 {
			return false, &protoError{fmt.Sprintf("chunk size %q", truncate(l))}
		}
		if size == 0 {
			p.st = pTrailers
		} else {
			p.st, p.left = pChunkData, size
		}
	case pChunkEnd:
		if len(l) != 0 {
			return false, &protoError{"chunk not followed by CRLF"}
		}
		p.st = pChunkSize
	case pTrailers:
		if len(l) == 0 {
			p.st = pDone
			return true, nil
		}
	}
	return false, nil
}

// bodyStart decides, at the end of the headers, what follows.
func (p *respParser) bodyStart() (done bool) {
	switch {
	case p.status == 101: // switched protocols: the connection is no longer HTTP
		p.keep = false
	case p.status < 200: // an interim response: the real one follows
		p.st = pStatus
		return false
	case p.head || p.status == 204 || p.status == 304:
	case p.chunked:
		p.st = pChunkSize
		return false
	case p.length > 0:
		p.st, p.left = pBody, p.length
		return false
	case p.length < 0:
		p.st, p.keep = pUntilClose, false
		return false
	}
	p.st = pDone
	return true
}

// eof tells the parser the connection ended: a body that runs until the
// close is then complete; anything else is cut short (io.EOF when nothing
// of the response came, io.ErrUnexpectedEOF otherwise).
func (p *respParser) eof() (done bool, err error) {
	switch {
	case p.st == pUntilClose || p.st == pDone:
		p.st = pDone
		return true, nil
	case p.n == 0:
		return false, io.EOF
	}
	return false, io.ErrUnexpectedEOF
}

func containsFold(s, sub []byte) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}
