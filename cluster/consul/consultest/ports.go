package consultest

import (
	"errors"
	"net"
	"strconv"
)

// freePort returns a loopback port the OS says is free for TCP (and UDP).
func freePort(udp bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !udp {
			return port, nil
		}
		u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = u.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free port")
}
