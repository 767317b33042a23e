package jobreport

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A card of 400 clips (a card of frames in clip folders makes one a
// thousand frames): its PDF sets each font only where it changes, so a
// page of the clip table is its text and lines, not the same font set
// again and again (fpdf holds every page until the PDF is written: ~55
// kB a page of which 88 % were repeated fonts, 11 MB for a card of a
// million frames). The text is all there.
func TestPDFSetsAFontOnlyWhereItChanges(t *testing.T) {
	r := printReport()
	base := r.Cards[0].Clips[0]
	r.Cards[0].Clips = nil
	for i := range 400 {
		c := base
		c.Name, c.SourceFile = fmt.Sprintf("A001C%03d_230512_R2EC", i+1), fmt.Sprintf("A001C%03d/A001C%03d_F0000001.ari", i+1, i+1)
		r.Cards[0].Clips = append(r.Cards[0].Clips, c)
	}
	pdf, err := os.ReadFile(writePDF(t, r))
	require.NoError(t, err)
	tf := regexp.MustCompile(`BT /F[0-9a-f]+ [0-9.]+ Tf ET`)
	var content, pages int
	for _, m := range regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`).FindAllSubmatch(pdf, -1) {
		zr, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			continue
		}
		data, err := io.ReadAll(zr)
		if (err != nil && !errors.Is(err, io.ErrUnexpectedEOF)) || !bytes.Contains(data, []byte(" Tj")) {
			continue // a font or an image, not a page
		}
		pages++
		content += len(data)
		last, again := "", 0
		for _, line := range strings.Split(string(data), "\n") {
			if tf.MatchString(line) {
				if line == last {
					again++
				}
				last = line
			}
		}
		// fpdf itself sets the font twice as it starts a page.
		require.LessOrEqual(t, again, 1, "page %d sets the font it has %d times", pages, again)
	}
	require.Greater(t, pages, 5, "the clip table spans pages")
	perClip := float64(content) / 400
	t.Logf("%d pages, %d bytes of page content: %.0f B a clip", pages, content, perClip)
	require.Less(t, perClip, 4000.0, "a clip's row is its cells' text and lines")
	text, _ := pdfText(t, pdf)
	for _, c := range r.Cards[0].Clips {
		require.Contains(t, text, c.Name)
	}
}
