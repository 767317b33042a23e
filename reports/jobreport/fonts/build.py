#!/usr/bin/env python3
"""Builds the fonts the PDF report embeds (fonts/*.ttf.gz) from Noto.

Not part of the build: run by hand when the fonts change, with fontTools
(Debian: python3-fonttools) and the sources below:

  apt-get install fonts-noto-core fonts-noto-cjk python3-fonttools
  pip download --no-deps manimgx-fonts   # NotoEmoji[wght].ttf (monochrome)
  python3 build.py /path/to/NotoEmoji[wght].ttf

Every font is Noto (SIL Open Font License 1.1, OFL.txt beside this file),
subset to what names need and stripped of hinting. fpdf takes TrueType
outlines with a BMP cmap only, so:
  - Noto Sans CJK (CFF) is converted to TrueType outlines, subset to the
    kana, the hangul and the ideographs of GB 2312, JIS X 0208, KS X 1001
    and Big5's level 1;
  - Noto Emoji (variable) is instanced at weight 400 and each emoji above
    U+FFFF is moved to the Private Use Area, U+E000 on, in the order of
    emoji.map (one hex code point a line); the PDF's text keeps the real
    characters (ActualText).
"""
import gzip, io, os, sys
from fontTools.ttLib import TTFont, newTable
from fontTools import subset
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen

HERE = os.path.dirname(os.path.abspath(__file__))
NOTO = "/usr/share/fonts/truetype/noto/"
CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def rng(a, b):
    return list(range(a, b + 1))


def save(font, name):
    buf = io.BytesIO()
    font.save(buf)
    data = buf.getvalue()
    with gzip.GzipFile(os.path.join(HERE, name), "wb", mtime=0, compresslevel=9) as f:
        f.write(data)
    print(name, len(data), os.path.getsize(os.path.join(HERE, name)))


def do_subset(font, unicodes):
    opts = subset.Options()
    opts.hinting = False
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.drop_tables += ["GSUB", "GPOS", "GDEF", "DSIG", "BASE", "JSTF", "MATH", "STAT", "vhea", "vmtx", "VORG"]
    s = subset.Subsetter(opts)
    s.populate(unicodes=unicodes)
    s.subset(font)
    return font


LATIN = (rng(0x20, 0x7E) + rng(0xA0, 0x52F) + rng(0x1AB0, 0x1AFF) + rng(0x1DC0, 0x1EFF) + rng(0x2000, 0x206F)
         + rng(0x2070, 0x20CF) + rng(0x20D0, 0x20FF) + rng(0x2100, 0x218F) + rng(0x2190, 0x21FF) + rng(0x2200, 0x22FF)
         + rng(0x25A0, 0x25FF) + rng(0xFB00, 0xFB06) + rng(0xFE20, 0xFE2F) + [0xFFFD])
ARABIC = [0x20, 0xA0] + rng(0x200C, 0x200F) + rng(0x600, 0x6FF) + rng(0x750, 0x77F) + rng(0x8A0, 0x8FF) + rng(0xFB50, 0xFDFF) + rng(0xFE70, 0xFEFF)


def cjk_chars():
    out = set(rng(0x3000, 0x30FF) + rng(0x3130, 0x318F) + rng(0x31F0, 0x31FF) + rng(0xFF00, 0xFFEF))
    for cp in rng(0x4E00, 0x9FFF) + rng(0xAC00, 0xD7A3):
        ch = chr(cp)
        try:
            if len(ch.encode("euc_kr")) == 2 and cp >= 0xAC00:  # the 2350 hangul of KS X 1001
                out.add(cp)
                continue
        except UnicodeEncodeError:
            pass
        if cp >= 0xAC00:
            continue
        for enc in ("gb2312", "shift_jis"):
            try:
                ch.encode(enc)
                out.add(cp)
                break
            except UnicodeEncodeError:
                pass
        else:
            try:
                b = ch.encode("big5")
                if 0xA440 <= int.from_bytes(b, "big") <= 0xC67E:  # level 1
                    out.add(cp)
            except UnicodeEncodeError:
                pass
    return sorted(out)


def cff_to_glyf(font):
    """Replaces a CFF font's outlines by TrueType ones."""
    gs = font.getGlyphSet()
    order = font.getGlyphOrder()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(gs)
        gs[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    del font["CFF "]
    font["maxp"] = newTable("maxp")
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for a in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
              "maxStackElements", "maxSizeOfInstructions"):
        setattr(maxp, a, 0)
    maxp.maxZones = 1
    font["head"].glyphDataFormat = 0
    font["post"].formatType = 3.0  # no glyph names
    font.sfntVersion = "\0\1\0\0"
    return font


def main():
    emoji_src = sys.argv[1]
    for style in ("Regular", "Bold"):
        save(do_subset(TTFont(NOTO + "NotoSans-%s.ttf" % style), LATIN), "NotoSans-%s.ttf.gz" % style)
        save(do_subset(TTFont(NOTO + "NotoSansArabic-%s.ttf" % style), ARABIC), "NotoSansArabic-%s.ttf.gz" % style)

    cjk = do_subset(TTFont(CJK, fontNumber=2), cjk_chars())  # 2: Noto Sans CJK SC
    print(cjk["name"].getDebugName(4))
    save(cff_to_glyf(cjk), "NotoSansCJK-Regular.ttf.gz")

    from fontTools.varLib import instancer
    em = instancer.instantiateVariableFont(TTFont(emoji_src), {"wght": 400})
    cmap = em.getBestCmap()
    emoji = sorted(cp for cp in cmap if cp > 0xFFFF or cp >= 0x2000)
    em = do_subset(em, emoji)
    cmap = em.getBestCmap()
    big = sorted(cp for cp in cmap if cp > 0xFFFF)
    assert len(big) <= 0x1900
    newmap = {cp: g for cp, g in cmap.items() if cp <= 0xFFFF and not 0xE000 <= cp <= 0xF8FF}
    for i, cp in enumerate(big):
        newmap[0xE000 + i] = cmap[cp]
    t = em["cmap"]
    t.tables = [st for st in t.tables if st.format == 4]
    for st in t.tables:
        st.cmap = dict(newmap)
    save(em, "NotoEmoji-Regular.ttf.gz")
    with open(os.path.join(HERE, "emoji.map"), "w") as f:
        for cp in big:
            f.write("%x\n" % cp)


main()
