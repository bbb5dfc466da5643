package main

import (
	"fmt"
	"time"
)

func main() {
	d := 90*time.Minute + 30*time.Second
	fmt.Println(d, d.Hours(), d.Round(time.Hour), d.Truncate(time.Hour))
	t := time.Date(2024, time.February, 29, 13, 4, 5, 0, time.UTC)
	fmt.Println(t)
	fmt.Println(t.Format(time.RFC3339), t.Format("2006-01-02 15:04"), t.Weekday(), t.YearDay())
	fmt.Println(t.AddDate(1, 0, 0).Format(time.DateOnly), t.Add(36*time.Hour).Format(time.Kitchen))
	p, err := time.Parse(time.DateTime, "2023-10-01 08:30:00")
	fmt.Println(p, err, t.Sub(p).Round(time.Hour))
	fmt.Println(p.Before(t), t.Equal(t.In(time.FixedZone("X", 3600))), t.Unix())
	dd, err := time.ParseDuration("1h15m30.5s")
	fmt.Println(dd, err, dd.Seconds())
	fmt.Printf("%v %d %s\n", time.Duration(1500)*time.Microsecond, time.Second, 2*time.Millisecond)
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	fmt.Println(time.Since(start) >= 5*time.Millisecond)
	fmt.Println(t.Month(), int(t.Month()), time.March.String())
	y, w := t.ISOWeek()
	fmt.Println(y, w, t.Truncate(24*time.Hour).Format(time.ANSIC))
}
