package catalog

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// Clip is a row of clips: one clip of a card (schema version 11; its
// sound and disagreements: version 25; what the camera was set to:
// version 26).
type Clip struct {
	CardID     int64
	Seq        int
	Name       string
	Reel       string
	Family     string
	Camera     string
	Type       string
	Codec      string
	Poster     string // card-relative path of the clip's first media file
	Files      int
	Bytes      int64
	Frames     int
	FPS        string
	Seconds    float64
	Resolution string
	TCStart    string
	Verified   bool
	// Thumb is the poster frame's path relative to the job's reports
	// folder on each destination; ThumbNote says why there is none.
	Thumb     string
	ThumbNote string
	// Audio is the clip's sound as the media said it (nil: nothing read
	// it, and every clip recorded before version 25; a zero ClipAudio:
	// the media has no sound).
	Audio *ClipAudio
	// Conflicts say where the media and a sidecar disagreed, one
	// disagreement each ("frames: sidecar 120, media 96 (the media's
	// kept)"); none when they agreed or nothing compared them.
	Conflicts []string
	// ClipShot is the camera's serial and what it was set to.
	ClipShot
}

// ClipShot is the camera a clip was shot with and what it was set to
// (internal/clips.Shot): its serial (schema version 11), ISO, white
// balance ("5600K") and lens (version 26: as its sidecar said them; ""
// where nothing did, and for every clip recorded before).
type ClipShot struct {
	Serial, ISO, WhiteBalance, Lens string
}

// ClipAudio is a clip's sound (internal/clips.Audio): its audio streams,
// their channels in all, and the first stream's sample rate (Hz), bit
// depth and codec ("PCM"); 0 and "" where unknown.
type ClipAudio struct {
	Streams, Channels, Rate, Bits int
	Codec                         string
}

// ClipCopy is a clip found by [Catalog.ClipsNamed]: the clip, its job and
// card, and where its first media file is on each destination.
type ClipCopy struct {
	Clip
	JobID     int64
	JobName   string
	CardLabel string
	CardPath  string
	Copies    []ClipDest
}

// ClipDest is a clip's first media file on one destination.
type ClipDest struct {
	Dest  string // the destination folder (-d)
	Path  string // the copy, relative to Dest
	State string // the file's copy state there (verified, copied, ...)
}

const clipCols = `card_id,seq,name,reel,family,camera,clip_type,codec,poster,files,bytes,frames,fps,seconds,resolution,tc_start,serial,verified,thumb,thumb_note,` +
	`audio_streams,audio_channels,audio_rate,audio_bits,audio_codec,conflicts,iso,white_balance,lens`

func scanClip(row interface{ Scan(...any) error }, k *Clip) error {
	var streams sql.NullInt64
	var a ClipAudio
	var conflicts string
	if err := row.Scan(&k.CardID, &k.Seq, &k.Name, &k.Reel, &k.Family, &k.Camera, &k.Type, &k.Codec, &k.Poster, &k.Files, &k.Bytes,
		&k.Frames, &k.FPS, &k.Seconds, &k.Resolution, &k.TCStart, &k.Serial, &k.Verified, &k.Thumb, &k.ThumbNote,
		&streams, &a.Channels, &a.Rate, &a.Bits, &a.Codec, &conflicts, &k.ISO, &k.WhiteBalance, &k.Lens); err != nil {
		return err
	}
	k.Audio, k.Conflicts = nil, nil
	if streams.Valid {
		a.Streams = int(streams.Int64)
		k.Audio = &a
	}
	if conflicts != "" {
		if err := json.Unmarshal([]byte(conflicts), &k.Conflicts); err != nil {
			return fmt.Errorf("clip %s of card %d: its conflicts are not a JSON list of strings (%q): %w", k.Name, k.CardID, conflicts, err)
		}
	}
	return nil
}

// clipInsert is the statement that inserts clip k as clip seq of card
// cardID (SetClips, and a push to another catalog).
func clipInsert(cardID int64, seq int, k *Clip) (string, []any) {
	var streams any // NULL: nothing read the sound
	var a ClipAudio
	if k.Audio != nil {
		a = *k.Audio
		streams = int64(a.Streams)
	}
	conflicts := ""
	if len(k.Conflicts) > 0 {
		b, _ := json.Marshal(k.Conflicts) // a []string always marshals
		conflicts = string(b)
	}
	return `INSERT INTO clips (` + clipCols + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		[]any{cardID, seq, k.Name, k.Reel, k.Family, k.Camera, k.Type, k.Codec, k.Poster, k.Files, k.Bytes,
			k.Frames, k.FPS, k.Seconds, k.Resolution, k.TCStart, k.Serial, k.Verified, k.Thumb, k.ThumbNote,
			streams, a.Channels, a.Rate, a.Bits, a.Codec, conflicts, k.ISO, k.WhiteBalance, k.Lens}
}

// SetClips replaces the clips of a card (numbered 1, 2, ... in the order
// given), their sound and disagreements with them, and waits until they
// are committed.
func (c *Catalog) SetClips(cardID int64, clips []Clip) error {
	c.Submit(`DELETE FROM clips WHERE card_id=?`, cardID)
	for i := range clips {
		q, args := clipInsert(cardID, i+1, &clips[i])
		c.Submit(q, args...)
	}
	return c.Flush()
}

// SetClipThumb records a clip's poster frame (thumb, relative to the job's
// reports folder) or why it has none (note).
func (c *Catalog) SetClipThumb(cardID int64, seq int, thumb, note string) {
	c.Submit(`UPDATE clips SET thumb=?, thumb_note=? WHERE card_id=? AND seq=?`, thumb, note, cardID, seq)
}

// Clips lists a card's clips in order (none: no clip was recognised, or
// the job ran before clips were recorded).
func (c *Catalog) Clips(cardID int64) ([]Clip, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT `+clipCols+` FROM clips WHERE card_id=? ORDER BY seq`, cardID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Clip
	for rows.Next() {
		var k Clip
		if err := scanClip(rows, &k); err != nil {
			return nil, c.wrap(err)
		}
		out = append(out, k)
	}
	return out, c.wrap(rows.Err())
}

// ClipsNamed finds clips by name in every job, newest job first: pattern
// is a clip name or a shell-style pattern (* any run of characters, ? one
// character), case-insensitive ("A023C004*", "*C004_*"). Each clip comes
// with its job, its card and where its first media file was copied.
// This is what `dit find` asks for a clip.
func (c *Catalog) ClipsNamed(pattern string) ([]ClipCopy, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	var like strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			like.WriteByte('%')
		case '?':
			like.WriteByte('_')
		case '%', '_', '\\':
			like.WriteByte('\\')
			like.WriteRune(r)
		default:
			like.WriteRune(r)
		}
	}
	cols := strings.ReplaceAll("l."+clipCols, ",", ",l.")
	rows, err := c.db.Query(`SELECT `+cols+`, j.id, j.name, k.label, k.path
		FROM clips l JOIN cards k ON k.id=l.card_id JOIN jobs j ON j.id=k.job_id
		WHERE LOWER(l.name) LIKE LOWER(?) ESCAPE '\'
		ORDER BY j.id DESC, k.seq, l.seq`, like.String())
	if err != nil {
		return nil, c.wrap(err)
	}
	var out []ClipCopy
	for rows.Next() {
		var k ClipCopy
		var sc scanFunc = func(dst ...any) error { return rows.Scan(dst...) }
		if err := scanClip(withTail(sc, &k.JobID, &k.JobName, &k.CardLabel, &k.CardPath), &k.Clip); err != nil {
			rows.Close()
			return nil, c.wrap(err)
		}
		out = append(out, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	for i := range out {
		k := &out[i]
		crow, err := c.db.Query(`SELECT d.path, p.path, p.state FROM copies p JOIN destinations d ON d.id=p.dest_id
			WHERE p.card_id=? AND p.rel_path=? ORDER BY d.seq`, k.CardID, k.Poster)
		if err != nil {
			return nil, c.wrap(err)
		}
		for crow.Next() {
			var d ClipDest
			if err := crow.Scan(&d.Dest, &d.Path, &d.State); err != nil {
				crow.Close()
				return nil, c.wrap(err)
			}
			k.Copies = append(k.Copies, d)
		}
		crow.Close()
		if err := crow.Err(); err != nil {
			return nil, c.wrap(err)
		}
	}
	return out, nil
}

type scanFunc func(dst ...any) error

func (f scanFunc) Scan(dst ...any) error { return f(dst...) }

// withTail scans the row's last columns into tail after those the caller
// asks for.
func withTail(row scanFunc, tail ...any) scanFunc {
	return func(dst ...any) error { return row(append(dst, tail...)...) }
}
