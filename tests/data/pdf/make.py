#!/usr/bin/env python3
"""Writes the PDF test documents of rypsok's PDF reader (see PROVENANCE.md).

Every file here is made by this script from text it holds: no document is
copied from elsewhere. Readable ones are drawn with fpdf2 (pure Python) in
DejaVu fonts; hostile ones are written byte by byte, since no library will
make them.

Usage: make.py OUT_DIR [--variants N]
  --variants N also writes N varied multi-page documents (bench-NNN.pdf) for
  tests/bench/pdf.sh; they are not committed.
"""
import random
import sys
import zlib
from pathlib import Path

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")

SENTENCES = [
    "The first sentence opens the report and names its subject plainly.",
    "A second sentence follows on the same line and continues the thought.",
    "Measurements were taken every morning at the northern station.",
    "The results agree with the earlier survey within the stated error.",
    "Readers who need the raw figures will find them in the appendix.",
    "Nothing in this section depends on the calibration described later.",
]

WORDS = ("river stone archive meadow signal lantern harbor copper theory "
         "window garden method sample census ledger orbit valley thread "
         "beacon quarry velvet summit mirror compass tundra glacier").split()


def doc(title=None):
    from fpdf import FPDF
    pdf = FPDF(format="A4")
    pdf.set_compression(True)
    pdf.add_font("DejaVu", "", str(FONT_DIR / "DejaVuSerif.ttf"))
    pdf.add_font("DejaVu", "B", str(FONT_DIR / "DejaVuSerif-Bold.ttf"))
    pdf.add_font("Sans", "", str(FONT_DIR / "DejaVuSans.ttf"))
    if title:
        pdf.set_title(title)
    pdf.set_creator("rypsok test data")
    pdf.set_auto_page_break(True, margin=20)
    return pdf


def two_page(out):
    pdf = doc("Two Page Field Report")
    pdf.add_page()
    pdf.set_font("DejaVu", "B", 16)
    pdf.cell(0, 10, "Field Report", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("DejaVu", "", 11)
    pdf.multi_cell(0, 6, " ".join(SENTENCES[:3]), new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.multi_cell(0, 6, " ".join(SENTENCES[3:]), new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(out / "two-page.pdf"))


def thirty_page(out):
    pdf = doc("Thirty Pages")
    for n in range(1, 31):
        pdf.add_page()
        pdf.set_font("DejaVu", "", 11)
        turn = SENTENCES[n % len(SENTENCES):] + SENTENCES[:n % len(SENTENCES)]
        pdf.multi_cell(0, 6, f"Section {n} begins here. " + " ".join(
            turn) + f" This is the closing line of section {n}.")
    pdf.output(str(out / "thirty-page.pdf"))


def columns(out):
    pdf = doc("Two Columns")
    pdf.add_page()
    pdf.set_font("DejaVu", "B", 14)
    pdf.cell(0, 10, "Two Columns", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("DejaVu", "", 10)
    left = "Left column text tells the first half of the story. " * 6
    right = "Right column text tells the second half of the story. " * 6
    y = pdf.get_y()
    pdf.set_xy(10, y)
    pdf.multi_cell(90, 5, left.strip())
    pdf.set_xy(110, y)
    pdf.multi_cell(90, 5, right.strip())
    pdf.output(str(out / "two-columns.pdf"))


def table_footnote(out):
    pdf = doc("Table and Footnote")
    pdf.add_page()
    pdf.set_font("DejaVu", "", 11)
    pdf.multi_cell(0, 6, "The table below lists three stations.\u00b9", new_x="LMARGIN", new_y="NEXT")
    with pdf.table() as table:
        for row in (("Station", "Depth", "Reading"), ("North", "12", "4.5"),
                    ("South", "30", "7.25"), ("East", "8", "1.0")):
            r = table.row()
            for cell in row:
                r.cell(cell)
    pdf.set_y(260)
    pdf.set_font("DejaVu", "", 8)
    pdf.multi_cell(0, 4, "\u00b9 Footnote: readings are in metres per second.", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(out / "table-footnote.pdf"))


def scripts(out):
    pdf = doc("Scripts and Ligatures")
    pdf.add_page()
    pdf.set_font("Sans", "", 12)
    for line in ("Ελληνικά: η γρήγορη καφέ αλεπού.",
                 "Русский: съешь же ещё этих мягких булок.",
                 "Ligatures: \ufb01ne \ufb02ow of\ufb01ce a\ufb00ord.",
                 "Hyphenation across a line end: the experi-",
                 "ment was repeated."):
        pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(out / "scripts.pdf"))


def headers_footers(out):
    pdf = doc("Running Heads")
    for n in range(1, 5):
        pdf.add_page()
        pdf.set_font("DejaVu", "", 8)
        pdf.cell(0, 5, "Journal of Repeated Headers, Volume 7",
                 new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("DejaVu", "", 11)
        pdf.multi_cell(0, 6, f"Body text of page {n}. " + SENTENCES[n], new_x="LMARGIN", new_y="NEXT")
        pdf.set_y(280)
        pdf.set_font("DejaVu", "", 8)
        pdf.cell(0, 5, "Confidential draft - do not cite")
    pdf.output(str(out / "running-heads.pdf"))


def image_only(out):
    """A page with only a drawn rectangle and an inline image: no text."""
    raw = bytes([0x80] * (16 * 16))
    content = (b"q 100 0 0 100 50 600 cm BI /W 16 /H 16 /CS /G /BPC 8 ID "
               + raw + b" EI Q 0 0 1 rg 50 50 200 200 re f")
    write_raw(out / "image-only.pdf", [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
        stream(content),
    ])


def stream(data, flate=False, extra=b""):
    if flate:
        data = zlib.compress(data, 9)
        extra += b" /Filter /FlateDecode"
    return (b"<< /Length " + str(len(data)).encode() + extra + b" >>\nstream\n"
            + data + b"\nendstream")


def write_raw(path, objects, trailer_extra=b""):
    """Writes numbered objects 1.. with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += str(i).encode() + b" 0 obj\n" + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 " + str(len(objects) + 1).encode() + b"\n0000000000 65535 f \n"
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += (b"trailer\n<< /Size " + str(len(objects) + 1).encode()
            + b" /Root 1 0 R" + trailer_extra + b" >>\nstartxref\n"
            + str(xref).encode() + b"\n%%EOF\n")
    path.write_bytes(bytes(out))


TEXT_PAGE = b"BT /F1 12 Tf 72 720 Td (Hostile file text.) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def bomb(out):
    """An inflation bomb: a content stream of 1 GiB of spaces, about 1 MB
    compressed, after a page of ordinary text."""
    z = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    data = bytearray(z.compress(TEXT_PAGE + b"\n"))
    for _ in range(1024):
        data += z.compress(chunk)
    data += z.flush()
    write_raw(out / "hostile-bomb.pdf", [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length " + str(len(data)).encode() + b" /Filter /FlateDecode >>\nstream\n"
        + bytes(data) + b"\nendstream",
        FONT,
    ])


def self_tree(out):
    """A page tree whose Kids point at the tree itself."""
    write_raw(out / "hostile-self-tree.pdf", [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        stream(TEXT_PAGE),
        FONT,
    ])


def deep(out, depth=300_000):
    """An array nested `depth` deep inside an object and a content stream."""
    nest = b"[" * depth + b"]" * depth
    write_raw(out / "hostile-deep.pdf", [
        b"<< /Type /Catalog /Pages 2 0 R /Deep " + nest + b" >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        stream(TEXT_PAGE + b"\n" + nest, flate=True),
        FONT,
    ])


def encrypted_unknown(out):
    """Declares an encryption dictionary with a handler nobody has."""
    write_raw(out / "hostile-encrypted.pdf", [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        stream(b"garbled"),
        FONT,
        b"<< /Filter /NoSuchHandler /V 5 /R 6 /O (x) /U (y) /P -4 >>",
    ], trailer_extra=b" /Encrypt 6 0 R /ID [<00><00>]")


def variants(out, n):
    rnd = random.Random(29)
    for i in range(n):
        pdf = doc(f"Variant {i}")
        pages = rnd.randint(1, 6)
        cols = rnd.choice((1, 1, 2))
        for _ in range(pages):
            pdf.add_page()
            pdf.set_font("DejaVu", "", rnd.choice((9, 10, 11, 12)))
            paras = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(30, 120))).capitalize() + "."
                     for _ in range(rnd.randint(2, 5))]
            if cols == 1:
                for p in paras:
                    pdf.multi_cell(0, 5, p, new_x="LMARGIN", new_y="NEXT")
                    pdf.ln(3)
            else:
                half = len(paras) // 2 or 1
                y = pdf.get_y()
                pdf.set_xy(10, y)
                pdf.multi_cell(90, 5, " ".join(paras[:half]))
                pdf.set_xy(110, y)
                pdf.multi_cell(90, 5, " ".join(paras[half:]))
        pdf.output(str(out / f"bench-{i:03d}.pdf"))


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    if "--variants" in sys.argv:
        variants(out, int(sys.argv[sys.argv.index("--variants") + 1]))
        return
    for make in (two_page, thirty_page, columns, table_footnote, scripts,
                 headers_footers, image_only, bomb, self_tree, deep,
                 encrypted_unknown):
        make(out)


if __name__ == "__main__":
    main()
