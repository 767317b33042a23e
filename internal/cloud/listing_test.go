package cloud

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The ETags are read from the S3 listing responses rclone dumps: keys
// under the folder listed only, URL-encoded keys decoded, quotes gone;
// a multipart ETag, or one that is not the md5 rclone reports for the
// object, is not the storage's MD5 of it.
func TestListedETags(t *testing.T) {
	dump := []byte(`2026/11/27 DEBUG : GET /shots?prefix=show%2F HTTP/1.1
<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><EncodingType>url</EncodingType>` +
		`<Contents><Key>show/day01/A001/a%20b.mov</Key><ETag>&#34;0123456789ABCDEF0123456789abcdef&#34;</ETag></Contents>` +
		`<Contents><Key>show/day01/A001/big.mov</Key><ETag>"1681408e0f02d74da668e072c6193e1f-6"</ETag></Contents>` +
		`<Contents><Key>other/x.mov</Key><ETag>"ffffffffffffffffffffffffffffffff"</ETag></Contents></ListBucketResult>
2026/11/27 DEBUG : <<<<<<`)
	d := Dest{Remote: "r", Path: "shots/show"}
	require.Equal(t, "show/day01/A001/", keyPrefix(d, "day01/A001"))
	got := listedETags(dump, keyPrefix(d, "day01/A001"))
	require.Equal(t, map[string]string{"a b.mov": "0123456789abcdef0123456789abcdef", "big.mov": "1681408e0f02d74da668e072c6193e1f-6"}, got)
	require.Equal(t, "0123456789abcdef0123456789abcdef", Object{ETag: got["a b.mov"], MD5: "0123456789abcdef0123456789abcdef"}.ServerMD5())
	require.Equal(t, "", Object{ETag: got["big.mov"], MD5: "799441f4843f1ca856c451c409edc7f6"}.ServerMD5(), "multipart")
	require.Equal(t, "", Object{ETag: got["a b.mov"], MD5: "799441f4843f1ca856c451c409edc7f6"}.ServerMD5(), "not this object's")
	require.Equal(t, "", keyPrefix(Dest{Remote: "r", Path: "shots"}, ""))
}
