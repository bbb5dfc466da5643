package comm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/kernel/comm"
)

// sent is one message a transport was given.
type sent struct {
	kind     comm.Kind
	content  map[string]any
	metadata map[string]any
	buffers  [][]byte
	parent   any
}

// recorder is a comm.Transport keeping what it is given (the kernel's is
// tested through real sockets in package kernel and kernel/testdata).
type recorder struct {
	mu   sync.Mutex
	msgs []sent
}

func (r *recorder) Publish(kind comm.Kind, content, metadata map[string]any, buffers [][]byte, parent any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, sent{kind, content, metadata, buffers, parent})
	return nil
}

func (r *recorder) take() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.msgs
	r.msgs = nil
	return out
}

// The package's state is per process, as the kernel's is: these tests are
// not parallel.

func install(t *testing.T) *recorder {
	r := &recorder{}
	t.Cleanup(comm.SetTransport(r))
	return r
}

func content(t *testing.T, id string, data any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]any{"comm_id": id, "data": data})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenSendReplyClose(t *testing.T) {
	r := install(t)
	c, err := comm.Open("test.open", map[string]any{"a": 1}, map[string]any{"version": "1"}, []byte{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if comm.Lookup(c.ID()) != c || comm.Info("test.open")[c.ID()] != "test.open" {
		t.Errorf("an open comm is looked up and listed: %v", comm.Info(""))
	}
	var replied comm.Msg
	c.OnMsg(func(m comm.Msg) error { replied = m; return nil })
	if err := comm.Deliver(comm.KindMsg, content(t, c.ID(), map[string]any{"x": 2}), nil, [][]byte{{9}}, "the parent"); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(map[string]any{"b": 2}); err != nil {
		t.Fatal(err)
	}
	if err := c.Reply(replied, map[string]any{"c": 3}, []byte("buf")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(nil); err != nil || !c.Closed() {
		t.Errorf("second Close = %v, Closed() = %v; want nil, true", err, c.Closed())
	}
	if err := c.Send(nil); !errors.Is(err, comm.ErrClosed) {
		t.Errorf("Send after Close = %v; want ErrClosed", err)
	}
	msgs := r.take()
	got := make([]string, len(msgs))
	for i, m := range msgs {
		got[i] = fmt.Sprintf("%s %v %v parent=%v", m.kind, m.content["data"], m.buffers, m.parent)
	}
	want := []string{
		"comm_open map[a:1] [[1 2]] parent=<nil>",
		"comm_msg map[b:2] [] parent=<nil>",
		"comm_msg map[c:3] [[98 117 102]] parent=the parent",
		"comm_close map[] [] parent=<nil>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("published:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msgs[0].content["target_name"] != "test.open" || msgs[0].metadata["version"] != "1" {
		t.Errorf("comm_open content %v metadata %v; want the target and metadata", msgs[0].content, msgs[0].metadata)
	}
	if _, ok := comm.Info("")[c.ID()]; ok {
		t.Error("a closed comm is still listed")
	}
}

func TestDeliverFromFrontEnd(t *testing.T) {
	r := install(t)
	var opened, closed []string
	var got []string
	unregister := comm.Register("test.fe", func(c *comm.Comm, m comm.Msg) error {
		var d struct{ Who string }
		if err := m.Decode(&d); err != nil {
			return err
		}
		if d.Who == "refused" {
			return errors.New("not today")
		}
		opened = append(opened, d.Who)
		c.OnMsg(func(m comm.Msg) error {
			var d struct{ N int }
			if err := m.Decode(&d); err != nil {
				return err
			}
			if d.N < 0 {
				panic("negative")
			}
			got = append(got, fmt.Sprintf("%d/%d", d.N, len(m.Buffers)))
			return nil
		})
		c.OnClose(func(comm.Msg) { closed = append(closed, c.ID()) })
		return nil
	})
	defer unregister()
	open := func(id, who, target string) error {
		b, _ := json.Marshal(map[string]any{"comm_id": id, "target_name": target, "data": map[string]any{"who": who}})
		return comm.Deliver(comm.KindOpen, b, nil, nil, nil)
	}
	if err := open("fe1", "page", "test.fe"); err != nil {
		t.Fatal(err)
	}
	if err := comm.Deliver(comm.KindMsg, content(t, "fe1", map[string]any{"n": 5}), nil, [][]byte{{1}, {2}}, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unknown comm", comm.Deliver(comm.KindMsg, content(t, "nope", map[string]any{}), nil, nil, nil), "comm_msg for comm nope: comm: no open comm with that id"},
		{"no comm_id", comm.Deliver(comm.KindMsg, json.RawMessage(`{"data": {}}`), nil, nil, nil), "comm_msg: no comm_id"},
		{"not JSON", comm.Deliver(comm.KindMsg, json.RawMessage(`{"comm_id": `), nil, nil, nil), "comm_msg: content is not a comm message"},
		{"data not an object", comm.Deliver(comm.KindMsg, json.RawMessage(`{"comm_id": "fe1", "data": [1]}`), nil, nil, nil), "data is not a JSON object"},
		{"bad data for the handler", comm.Deliver(comm.KindMsg, content(t, "fe1", map[string]any{"n": "x"}), nil, nil, nil), "comm_msg for comm fe1 (test.fe): comm data:"},
		{"handler panic", comm.Deliver(comm.KindMsg, content(t, "fe1", map[string]any{"n": -1}), nil, nil, nil), "handler panicked: negative"},
		{"unknown target", open("fe2", "x", "test.nobody"), `comm_open for comm fe2, target "test.nobody": comm: no handler registered for that target`},
		{"refused", open("fe3", "refused", "test.fe"), `comm_open for comm fe3, target "test.fe": not today`},
		{"duplicate", open("fe1", "again", "test.fe"), "a comm with that id is already open"},
		{"no target", open("fe4", "x", ""), "no target_name"},
		{"unknown kind", comm.Deliver("comm_bogus", content(t, "fe1", nil), nil, nil, nil), `unknown message kind "comm_bogus"`},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: Deliver = %v; want an error containing %q", tt.name, tt.err, tt.want)
		}
	}
	if !errors.Is(tests[0].err, comm.ErrUnknownComm) || !errors.Is(tests[6].err, comm.ErrUnknownTarget) {
		t.Error("the unknown comm and target errors are ErrUnknownComm and ErrUnknownTarget")
	}
	// The unknown target and the refused open were answered with comm_close.
	var closes []string
	for _, m := range r.take() {
		if m.kind == comm.KindClose {
			closes = append(closes, m.content["comm_id"].(string))
		}
	}
	if strings.Join(closes, ",") != "fe2,fe3" {
		t.Errorf("comm_close sent for %v; want fe2,fe3", closes)
	}
	if err := comm.Deliver(comm.KindClose, content(t, "fe1", nil), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Join(opened, ",") != "page" || strings.Join(got, ",") != "5/2" || strings.Join(closed, ",") != "fe1" {
		t.Errorf("opened %v, messages %v, closed %v; want [page] [5/2] [fe1]", opened, got, closed)
	}
	if len(comm.Info("test.fe")) != 0 {
		t.Errorf("comms left open: %v", comm.Info("test.fe"))
	}
}

func TestHeadless(t *testing.T) {
	defer comm.SetTransport(nil)()
	if comm.Connected() {
		t.Fatal("Connected with no transport")
	}
	c, err := comm.Open("test.headless", nil, nil)
	if err != nil || c.Send(map[string]any{"x": 1}) != nil || c.Close(nil) != nil {
		t.Errorf("without a transport a comm opens, sends and closes quietly: %v", err)
	}
}

func ExampleRegister() {
	// A target of your own: front ends open comms to "demo.echo" and get
	// their word back in capitals (the kernel calls Deliver for them).
	unregister := comm.Register("demo.echo", func(c *comm.Comm, open comm.Msg) error {
		c.OnMsg(func(m comm.Msg) error {
			var d struct{ Word string }
			if err := m.Decode(&d); err != nil {
				return err
			}
			fmt.Println("got", d.Word)
			return c.Reply(m, map[string]string{"word": strings.ToUpper(d.Word)})
		})
		return nil
	})
	defer unregister()
	_ = comm.Deliver(comm.KindOpen, json.RawMessage(`{"comm_id": "c1", "target_name": "demo.echo", "data": {}}`), nil, nil, nil)
	_ = comm.Deliver(comm.KindMsg, json.RawMessage(`{"comm_id": "c1", "data": {"word": "gopher"}}`), nil, nil, nil)
	fmt.Println(comm.Info("demo.echo"))
	// Output:
	// got gopher
	// map[c1:demo.echo]
}

func ExampleOpen() {
	// Headless (no kernel), a comm opens and its sends go nowhere.
	c, err := comm.Open("demo.chart", map[string]any{"points": 3}, nil, []byte{1, 2, 3})
	fmt.Println(err, comm.Connected(), c.Target(), c.Send(map[string]any{"points": 4}))
	c.Close(nil)
	// Output:
	// <nil> false demo.chart <nil>
}
