package cloud

// WriteError is writeError, for the tests of its words.
var WriteError = writeError
