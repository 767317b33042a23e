// Package units parses and formats the sizes, rates, throughputs and
// durations that dit shows to people or reads from flags.
//
// Everything a person reads is decimal, the way drive makers and camera
// vendors count: 1 kB = 1000 bytes, 1 GB = 10^9 bytes, 1 TB = 10^12 bytes,
// and 1 TB/hour = 10^12 bytes per hour (so 1 GB/s = 3.6 TB/hour). Binary
// suffixes (KiB, MiB, GiB, TiB) are accepted on input for people who think
// in powers of 1024, but output is always decimal.
//
// Parsing is deliberately small and unambiguous: a non-negative number
// (digits with an optional decimal point), optional spaces, and an optional
// unit. Unit letters are case-insensitive, so "2gb" is two gigabytes; bits
// are only ever spelled out ("Gbit/s", "Gbps") so that a lowercase "b"
// always means bytes. Parse errors quote the value and give examples of
// what is accepted, so they can be shown to the user as they are.
package units
