module github.com/conclab/conclab

go 1.26.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.2.0
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/disintegration/imaging v1.6.2
	github.com/go-echarts/go-echarts/v2 v2.7.2
	github.com/go-sql-driver/mysql v1.10.1
	github.com/go-zeromq/zmq4 v0.17.0
	github.com/jackc/pgx/v5 v5.12.0
	github.com/traefik/yaegi v0.16.1
	github.com/yuin/goldmark v1.8.7
	golang.org/x/sys v0.49.0
	modernc.org/sqlite v1.62.0
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/go-zeromq/goczmq/v4 v4.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	golang.org/x/image v0.0.0-20191009234506-e7c1f5e7dbb8 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)
