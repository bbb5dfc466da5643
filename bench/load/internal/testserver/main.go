// Command testserver is the comparison script's and the shell tests'
// target: a plain net/http keep-alive server on loopback answering every
// request with a short body, optionally after a fixed delay, and with a
// 500 to every -fail-every'th request. It prints its address on the first
// line of stdout and serves until killed or until -max elapses.
//
// -h2c also accepts cleartext HTTP/2 with prior knowledge; -tls serves
// HTTPS (HTTP/2 by ALPN, and HTTP/1.1) with a fresh self-signed
// certificate for 127.0.0.1, written as PEM to -cert (for --cacert).
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	delay := flag.Duration("delay", 0, "sleep before answering")
	failEvery := flag.Int("fail-every", 0, "answer 500 to every N-th request (0: never)")
	maxLife := flag.Duration("max", 10*time.Minute, "exit after this long whatever happens")
	h2c := flag.Bool("h2c", false, "also accept cleartext HTTP/2 with prior knowledge")
	useTLS := flag.Bool("tls", false, "serve HTTPS (h2 and HTTP/1.1) with a self-signed certificate")
	certOut := flag.String("cert", "", "with -tls: write the certificate (PEM) to this file")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(err)
	}
	body := []byte("hello, world\n")
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *delay > 0 {
			time.Sleep(*delay)
		}
		if *failEvery > 0 && n.Add(1)%int64(*failEvery) == 0 {
			http.Error(w, "failing on purpose", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(*h2c)
	if *useTLS {
		cert, err := selfSigned(*certOut)
		if err != nil {
			fail(err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	fmt.Println(ln.Addr().String())
	time.AfterFunc(*maxLife, func() { os.Exit(0) })
	if *useTLS {
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	fail(err)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "testserver:", err)
	os.Exit(1)
}

// selfSigned makes a certificate for 127.0.0.1, ::1 and localhost, and
// writes it as PEM to path (unless empty).
func selfSigned(path string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "conclab testserver"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	if path != "" {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
			return tls.Certificate{}, err
		}
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
