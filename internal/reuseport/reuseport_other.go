//go:build !linux

package reuseport

import (
	"context"
	"net"
	"os"
)

// Reserve is Linux only (ErrUnsupported).
func Reserve(addr string) (*os.File, *net.TCPAddr, error) { return nil, nil, ErrUnsupported }

// Addr is Linux only (ErrUnsupported).
func Addr(f *os.File) (*net.TCPAddr, error) { return nil, ErrUnsupported }

// Listen is Linux only (ErrUnsupported).
func Listen(ctx context.Context, addr string) (*net.TCPListener, error) { return nil, ErrUnsupported }
