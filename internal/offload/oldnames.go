package offload

// The names below are the old "Cloud" spellings of what is now called a
// remote destination. They stay until their last users are renamed (not
// marked Deprecated: staticcheck, in make lint, would fail those users):
// tests (storeseal_test.go: CloudVerifiedBy; cmd/dit's
// resume_check_test.go: ParseCloudBwLimit) and packages outside this
// change (cmd/dit-gui: ParseCloudBwLimit; internal/proxies:
// CloudByServer, CloudByReadBack; reports/jobreport: CloudByServer,
// CloudByHistory).

// Old name of RemoteByStorage (to go: see above).
const CloudByServer = RemoteByStorage

// Old name of RemoteByReadBack (to go: see above).
const CloudByReadBack = RemoteByReadBack

// Old name of RemoteByHistory (to go: see above).
const CloudByHistory = RemoteByHistory

// Old name of RemoteVerifiedBy (to go: see above).
func CloudVerifiedBy(verifyAlgos string) string { return RemoteVerifiedBy(verifyAlgos) }

// Old name of ParseRemoteBwLimit (to go: see above).
func ParseCloudBwLimit(s string) (int64, error) { return ParseRemoteBwLimit(s) }
