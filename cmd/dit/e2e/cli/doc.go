// Package cli holds the end-to-end tests of the command line as a user
// meets it (the real binary): the README's commands, usage errors and
// their exit codes, catalogs that do not exist, kill -9 and resume of a
// plain job, a resume given other settings, Unicode names.
package cli
