package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

type greeting struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

func main() {
	count := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello/{name}", func(w http.ResponseWriter, r *http.Request) {
		count++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(greeting{"hello " + r.PathValue("name"), count})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, name := range []string{"ana", "bo"} {
		resp, err := http.Get(srv.URL + "/hello/" + name)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Print(resp.StatusCode, " ", resp.Header.Get("Content-Type"), " ", string(body))
	}
	resp, _ := http.Post(srv.URL+"/hello/x", "text/plain", nil)
	fmt.Println(resp.StatusCode)
	resp.Body.Close()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/hello/rec", nil)
	mux.ServeHTTP(rec, req)
	var g greeting
	json.Unmarshal(rec.Body.Bytes(), &g)
	fmt.Printf("%+v\n", g)
}
