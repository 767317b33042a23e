// Package mhl holds the end-to-end tests of the hash lists dit writes and
// reads (the real binary): ASC MHL conformance and interop with the ASC
// reference tool and ocopy (installed from PyPI into .cache/ on first use;
// python3 needed), MHL v1.1 lists against the schema (xmllint), dit mhl
// create/verify/diff/flatten, second hops, ignore patterns, a resume that
// keeps its MHL choice.
package mhl
