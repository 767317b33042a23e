package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// dit serve on every address prints one URL per address another device
// can reach, with the token; on one address, that address.
func TestServeURLs(t *testing.T) {
	ifaces := func() ([]net.Addr, error) {
		var out []net.Addr
		for _, c := range []string{"127.0.0.1/8", "192.168.1.20/24", "169.254.3.4/16", "::1/128", "fe80::1/64", "2001:db8::7/64", "10.0.0.5/8"} {
			ip, n, err := net.ParseCIDR(c)
			require.NoError(t, err)
			n.IP = ip
			out = append(out, n)
		}
		return out, nil
	}
	urls, all := serveURLs("0.0.0.0", 8765, "on set/42", ifaces)
	require.True(t, all)
	require.Equal(t, []string{"http://192.168.1.20:8765/?token=on+set%2F42", "http://10.0.0.5:8765/?token=on+set%2F42"}, urls)
	both := []string{"http://192.168.1.20:8765/?token=t", "http://[2001:db8::7]:8765/?token=t", "http://10.0.0.5:8765/?token=t"}
	urls, _ = serveURLs("::", 8765, "t", ifaces)
	require.Equal(t, both, urls)
	urls, all = serveURLs("", 8765, "t", ifaces)
	require.True(t, all)
	require.Equal(t, both, urls, "--listen :8765 is every address")
	urls, all = serveURLs("127.0.0.1", 80, "", ifaces)
	require.False(t, all)
	require.Equal(t, []string{"http://127.0.0.1:80/"}, urls)
	urls, _ = serveURLs("fd00::2", 80, "", ifaces)
	require.Equal(t, []string{"http://[fd00::2]:80/"}, urls)
	urls, _ = serveURLs("0.0.0.0", 1, "", func() ([]net.Addr, error) { return nil, nil })
	require.Equal(t, []string{"http://127.0.0.1:1/"}, urls, "no network: this machine")
	// This machine's own interfaces: never the unspecified address.
	urls, _ = serveURLs("::", 2, "t", net.InterfaceAddrs)
	for _, u := range urls {
		require.NotContains(t, u, "[::]")
		require.NotContains(t, u, "0.0.0.0")
	}
}
