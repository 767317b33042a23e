package clips

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// What the camera was set to comes from the sidecars that say it: Sony's
// M01.XML acquisition items (name and value), Blackmagic's .sidecar JSON
// (its white balance a bare number of kelvin: given its K), an ARRI-like
// XML's elements; a clip whose sidecar says nothing of it has none.
func TestShotFromSidecars(t *testing.T) {
	side := map[string]string{
		"PRIVATE/M4ROOT/CLIP/C0001M01.XML": `<?xml version="1.0"?>
<NonRealTimeMeta xmlns="urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.20">
	<Duration value="48"/>
	<AcquisitionRecord><Group name="CameraUnitMetadataSet">
		<Item name="ISOSensitivity" value="800"/>
		<Item name="WhiteBalance" value="5600K"/>
		<Item name="LensModelName" value="FE 24-70mm F2.8 GM"/>
	</Group></AcquisitionRecord>
	<Device manufacturer="Sony" modelName="ILME-FX6V" serialNo="4012345"/>
</NonRealTimeMeta>`,
		"PRIVATE/M4ROOT/CLIP/C0002M01.XML": `<NonRealTimeMeta><Duration value="30"/></NonRealTimeMeta>`,
	}
	read := func(rel string) ([]byte, error) { return []byte(side[rel]), nil }
	k := Recognize([]File{{"PRIVATE/M4ROOT/CLIP/C0001.MP4", 10}, {"PRIVATE/M4ROOT/CLIP/C0001M01.XML", 5},
		{"PRIVATE/M4ROOT/CLIP/C0002.MP4", 10}, {"PRIVATE/M4ROOT/CLIP/C0002M01.XML", 5}}, read)
	require.Len(t, k.Clips, 2)
	require.Equal(t, Shot{Serial: "4012345", ISO: "800", WhiteBalance: "5600K", Lens: "FE 24-70mm F2.8 GM"}, k.Clips[0].Shot)
	require.Equal(t, Shot{}, k.Clips[1].Shot, "nothing said: nothing invented")

	var c Clip
	applySidecar(&c, "C001_08151432_C001.sidecar",
		[]byte(`{"camera_type": "Blackmagic URSA Mini Pro 12K", "iso": 400, "white_balance_kelvin": 3200, "lens_type": "Zeiss CP.3 50mm"}`))
	require.Equal(t, Shot{ISO: "400", WhiteBalance: "3200K", Lens: "Zeiss CP.3 50mm"}, c.Shot)

	c = Clip{}
	applySidecar(&c, "A001C001.xml", []byte(`<ClipMetadata><ExposureIndex>1600</ExposureIndex><WhiteBalance>4300</WhiteBalance><LensModel>ARRI Signature Prime 35mm</LensModel></ClipMetadata>`))
	require.Equal(t, Shot{ISO: "1600", WhiteBalance: "4300K", Lens: "ARRI Signature Prime 35mm"}, c.Shot)
}
