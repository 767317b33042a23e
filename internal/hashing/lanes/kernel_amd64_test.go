//go:build amd64 && gc && !noasm

package lanes

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
	"github.com/stretchr/testify/require"
)

// A batch of more than 8 streams is hashed by the 8-lane kernel twice on
// AMD Zen 4 only (family 0x19), where that is faster; elsewhere by the
// 16-lane kernel. The process's service follows the rule.
func TestHalvesOnZen4Only(t *testing.T) {
	require.True(t, halvesFaster(true, 0x19), "AMD Zen 4")
	require.False(t, halvesFaster(true, 0x1a), "AMD Zen 5: not measured, the 16-lane kernel")
	require.False(t, halvesFaster(true, 0x17), "AMD Zen 2 (no AVX-512)")
	require.False(t, halvesFaster(false, 6), "Intel")
	zen4 := cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family == 0x19
	require.Equal(t, Lanes() == 16 && zen4, svc.halves, "%s on %s family %#x", Describe(), cpuid.CPU.BrandName, cpuid.CPU.Family)
}
