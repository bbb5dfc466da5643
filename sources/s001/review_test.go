package s001_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/conclab/conclab/sources/s001"
)

func TestScan(t *testing.T) {
	t.Parallel()
	type hit struct {
		line     int
		function string
		reason   string // a prefix of the reason
	}
	for _, tc := range []struct {
		name, code string
		want       []hit
	}{
		{"async def with a blocking sleep and no await", "import time\n\nasync def f():\n    time.sleep(1)\n",
			[]hit{{3, "f", s001.NoAwait}, {4, "f", s001.Blocking + "time.sleep("}}},
		{"def may block", "def f():\n    time.sleep(1)\n    requests.get(u)\n", nil},
		{"awaited sleep", "async def f():\n    await asyncio.sleep(1)\n", nil},
		{"offloaded", "async def f():\n    await asyncio.to_thread(time.sleep, 1)\n    r = await loop.run_in_executor(None, requests.get, u)\n", nil},
		{"requests beside an await", "async def f():\n    await g()\n    r = requests.get(u)  # blocks\n",
			[]hit{{3, "f", s001.Blocking + "requests.get("}}},
		{"async with counts as await", "async def f():\n    async with httpx.AsyncClient() as c:\n        pass\n", nil},
		{"a nested def's body is its own", "async def f():\n    def g():\n        time.sleep(1)\n    return await asyncio.to_thread(g)\n", nil},
		{"an async generator is not flagged for no await", "async def lifespan(app):\n    yield\n", nil},
		{"open and Image and _sync", "async def f(p):\n    await x()\n    data = open(p).read()\n    im = Image.open(p)\n    insert_sync(db)\n",
			[]hit{{3, "f", s001.Blocking + "open("}, {4, "f", s001.Blocking + "Image.open("}, {5, "f", s001.Blocking + "insert_sync("}}},
		{"a method's open is not the builtin", "async def f(p):\n    await x()\n    z.open(p)\n", nil},
		{"strings and comments are not calls", "async def f():\n    \"\"\"time.sleep(1) in a docstring\n    requests.get(u)\"\"\"\n    await g('time.sleep(1)')  # time.sleep(2)\n", nil},
		{"the function ends where its indentation does", "async def f():\n    await g()\n\ntime.sleep(1)\n\nasync def h():\n    return 1\n",
			[]hit{{6, "h", s001.NoAwait}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []hit
			for _, f := range s001.Scan("x.py", tc.code) {
				if f.File != "x.py" {
					t.Errorf("file %q", f.File)
				}
				h := hit{f.Line, f.Function, f.Reason}
				for _, w := range tc.want {
					if w.line == f.Line && strings.HasPrefix(f.Reason, w.reason) {
						h.reason = w.reason
					}
				}
				got = append(got, h)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Scan:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// Review on the source's app flags exactly its blocking async defs: the
// book's async_block, exercise 3's async dependency and exercise 4's
// requests inside async def, and the handlers that await nothing (/ready,
// exercise 3's two, whose dependency does the work).
func TestReviewTheSourcesApp(t *testing.T) {
	t.Parallel()
	f, err := s001.Review(s001.Files(), "app001.py")
	if err != nil {
		t.Fatal(err)
	}
	flagged := map[string][]string{}
	for i := range f.Len() {
		flagged[f.Text("function", i)] = append(flagged[f.Text("function", i)], f.Text("reason", i))
	}
	want := map[string]int{"ready": 1, "async_block": 2, "get_conn_async": 2, "api_requests_async": 2, "dep_def": 1, "dep_async": 1}
	for fn, n := range want {
		if len(flagged[fn]) != n {
			t.Errorf("%s: %d findings %q, want %d", fn, len(flagged[fn]), flagged[fn], n)
		}
	}
	for fn := range flagged {
		if _, ok := want[fn]; !ok {
			t.Errorf("%s flagged: %q", fn, flagged[fn])
		}
	}
	if _, err := s001.Review(s001.Files(), "nope.py"); err == nil || !strings.Contains(err.Error(), "nope.py") {
		t.Errorf("Review(nope.py): err = %v", err)
	}
}
