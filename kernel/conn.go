package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
)

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and validates a connection file. Errors name the
// problem: missing, unreadable, not JSON, unsupported transport or signature
// scheme, missing ports.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ci, fmt.Errorf("connection file %s does not exist", path)
	case errors.Is(err, fs.ErrPermission):
		return ci, fmt.Errorf("connection file %s is not readable (permission denied)", path)
	case err != nil:
		return ci, fmt.Errorf("connection file %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &ci); err != nil {
		return ci, fmt.Errorf("connection file %s is not valid JSON: %v", path, err)
	}
	if err := ci.Validate(); err != nil {
		return ci, fmt.Errorf("connection file %s: %w", path, err)
	}
	return ci, nil
}

// Validate checks the fields the kernel needs.
func (ci *ConnectionInfo) Validate() error {
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.Transport != "tcp" {
		return fmt.Errorf("unsupported transport %q (only tcp)", ci.Transport)
	}
	if ci.IP == "" {
		return errors.New("no ip")
	}
	if net.ParseIP(ci.IP) == nil && ci.IP != "localhost" && ci.IP != "*" {
		return fmt.Errorf("ip %q is not an IP address", ci.IP)
	}
	switch ci.SignatureScheme {
	case "hmac-sha256":
	case "":
		if ci.Key != "" {
			return errors.New("key given without signature_scheme")
		}
	default:
		return fmt.Errorf("unsupported signature_scheme %q (want hmac-sha256)", ci.SignatureScheme)
	}
	for name, p := range map[string]int{"shell_port": ci.ShellPort, "iopub_port": ci.IOPubPort,
		"stdin_port": ci.StdinPort, "control_port": ci.ControlPort, "hb_port": ci.HBPort} {
		if p <= 0 || p > 65535 {
			return fmt.Errorf("%s %d is not a valid port", name, p)
		}
	}
	return nil
}

func (ci ConnectionInfo) endpoint(port int) string {
	ip := ci.IP
	if ip == "*" {
		ip = "0.0.0.0"
	}
	return ci.Transport + "://" + net.JoinHostPort(ip, strconv.Itoa(port))
}

// checkPorts reports a port already in use before zmq4 binds, so the error
// is clear.
func (ci ConnectionInfo) checkPorts() error {
	for _, p := range []struct {
		name string
		port int
	}{{"shell", ci.ShellPort}, {"iopub", ci.IOPubPort}, {"stdin", ci.StdinPort}, {"control", ci.ControlPort}, {"hb", ci.HBPort}} {
		ip := ci.IP
		if ip == "*" {
			ip = "0.0.0.0"
		}
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p.port)))
		if err != nil {
			return fmt.Errorf("%s port %d on %s is not available: %v", p.name, p.port, ip, err)
		}
		l.Close()
	}
	return nil
}
