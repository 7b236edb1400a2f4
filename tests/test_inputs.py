"""seqlab.inputs: every refusal, bombs and oversized files within a small memory budget."""

import bz2
import gzip
import io
import lzma
import os
import socket
import threading
import tracemalloc
import zipfile
import zlib

import pandas as pd
import pytest

from seqlab.inputs import (InputLimits, check_members, decode_text, detect_encoding, open_archive, read_bytes, read_csv,
                           read_member, read_text)

CSV = b"time,load\n1,10.5\n2,11.0\n3,9.75\n"
FRAME = pd.DataFrame({"time": [1, 2, 3], "load": [10.5, 11.0, 9.75]})
MB = 1 << 20
ALLOW = InputLimits(allow_compressed=True, max_decompressed_bytes=10 * MB)


class Upload(io.BytesIO):
    """What Streamlit's UploadedFile offers: a BytesIO with a name and a size."""

    def __init__(self, data: bytes, name: str = "upload.csv", size: int | None = None):
        super().__init__(data)
        self.name, self.size = name, len(data) if size is None else size


def peak_bytes(call) -> int:
    """Peak memory traced while ``call()`` runs (it must raise ValueError)."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as caught:
            call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress,
               "zip": lambda data: zip_of({"series.csv": data})}


# --- where the bytes come from ---------------------------------------------------------


def test_a_path_an_upload_and_bytes_read_the_same_table(tmp_path):
    path = tmp_path / "series.csv"
    path.write_bytes(CSV)
    for source in (path, str(path), Upload(CSV), CSV, bytearray(CSV)):
        pd.testing.assert_frame_equal(read_csv(source), FRAME)


def test_an_upload_read_before_is_read_whole_again():
    upload = Upload(CSV)
    upload.read()  # a Streamlit rerun finds the position at the end
    pd.testing.assert_frame_equal(read_csv(upload), FRAME)


@pytest.mark.parametrize("url", ["https://example.org/series.csv", "s3://bucket/x.csv", "file:///etc/passwd",
                                 "FILE:series.csv"])
def test_urls_are_refused(url):
    with pytest.raises(ValueError, match="is a URL; seqlab reads local files only: download it"):
        read_csv(url)


def test_missing_file_folder_and_device_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"'.*nothing.csv' does not exist: check the path"):
        read_csv(tmp_path / "nothing.csv")
    with pytest.raises(ValueError, match="does not exist"):
        read_csv(tmp_path / "nothing" / "below.csv")
    with pytest.raises(ValueError, match="is a folder: give the path of a file inside it"):
        read_csv(tmp_path)
    with pytest.raises(ValueError, match="is not a regular file"):
        read_bytes("/dev/zero")


def test_a_symlink_is_judged_by_its_target(tmp_path):
    (tmp_path / "real.csv").write_bytes(CSV)
    (tmp_path / "link.csv").symlink_to(tmp_path / "real.csv")
    pd.testing.assert_frame_equal(read_csv(tmp_path / "link.csv"), FRAME)
    (tmp_path / "to_folder").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="is a folder"):
        read_csv(tmp_path / "to_folder")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(ValueError, match="'.*loop' cannot be read"):
        read_csv(tmp_path / "loop")


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(_error(read_csv, fifo)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert "is not a regular file (a device, pipe or socket)" in outcome[0]


def test_a_socket_is_refused(tmp_path):
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "s.csv"))
        with pytest.raises(ValueError, match="is not a regular file"):
            read_csv(tmp_path / "s.csv")
    finally:
        server.close()


def test_an_unreadable_file_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "secret.csv"
    path.write_bytes(CSV)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)  # the tests run as root, for whom chmod changes nothing
    with pytest.raises(ValueError, match="'.*secret.csv' cannot be read \\(permission denied\\)"):
        read_csv(path)


def test_bad_path_strings_are_refused():
    for text in ("", "   ", "a\x00b.csv"):
        with pytest.raises(ValueError, match="is not a valid path"):
            read_csv(text)


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.csv"
    with open(path, "wb") as file:
        file.truncate(4_000_000_000)  # sparse: no disk used
    peak = peak_bytes(lambda: read_bytes(path))
    assert peak < MB  # << 4 GB: nothing was read


def test_a_file_longer_than_its_stat_size_is_stopped_while_reading():
    # /proc files report size 0 and then produce content, like a file that grows after the check.
    with pytest.raises(ValueError, match="'/proc/self/status' is larger than the limit of 100 bytes"):
        read_bytes("/proc/self/status", InputLimits(max_bytes=100))


def test_an_upload_is_refused_by_its_size_before_it_is_copied():
    class Large(Upload):
        def getvalue(self):
            raise AssertionError("the content was copied")

    with pytest.raises(ValueError, match="'big.csv' is 80.0 MB; the limit is 50.0 MB: use a smaller file"):
        read_csv(Large(b"", name="big.csv", size=80 * MB))


def test_an_endless_stream_is_cut_at_the_limit():
    class Endless:
        name = "endless.csv"

        def read(self, n):
            return b"1" * n

    peak = peak_bytes(lambda: read_bytes(Endless(), InputLimits(max_bytes=5 * MB)))
    assert peak < 3 * 5 * MB


def test_size_limit_on_bytes():
    with pytest.raises(ValueError, match=f"is {len(CSV)} bytes; the limit is 10 bytes"):
        read_csv(CSV, InputLimits(max_bytes=10))


def test_a_text_mode_file_is_a_programming_error():
    with pytest.raises(TypeError, match="binary mode"):
        read_bytes(io.StringIO("a,b"))
    with pytest.raises(TypeError, match="takes a path"):
        read_bytes(12)


# --- compressed input -----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_compressed_input_is_refused_unless_allowed_and_told_by_content(kind):
    packed = COMPRESSORS[kind](CSV)
    with pytest.raises(ValueError, match=f"'series.csv' is compressed \\({kind}\\); .*decompress it"):
        read_csv(Upload(packed, name="series.csv"))  # the name says CSV; the bytes say otherwise
    pd.testing.assert_frame_equal(read_csv(packed, ALLOW), FRAME)


def test_a_plain_file_named_gz_is_read_as_plain():
    pd.testing.assert_frame_equal(read_csv(Upload(CSV, name="series.csv.gz")), FRAME)


def test_text_that_starts_like_bzip2_is_not_taken_for_it():
    assert read_text(b"BZh is not a block size\n") == "BZh is not a block size\n"


def _bomb(kind: str, total: int) -> bytes:
    """``total`` zero bytes compressed, built from concatenated streams (all three formats allow it)."""
    piece = 10 * MB
    member = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](bytes(piece))
    return member * (total // piece)


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz"])
def test_a_bomb_is_never_inflated(kind):
    bomb = _bomb(kind, 1000 * MB)  # 1 GB of zeros
    assert len(bomb) < 2 * MB
    peak = peak_bytes(lambda: read_bytes(bomb, ALLOW))
    assert peak < 3 * ALLOW.max_decompressed_bytes
    with pytest.raises(ValueError, match="decompresses to more than 10.0 MB, the limit"):
        read_bytes(bomb, ALLOW)


def test_a_zip_bomb_is_refused_by_its_declared_size_and_its_stream():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("zeros.csv", "w") as member:
            for _ in range(200):
                member.write(bytes(MB))
    bomb = buffer.getvalue()
    peak = peak_bytes(lambda: read_bytes(bomb, ALLOW))
    assert peak < 3 * ALLOW.max_decompressed_bytes
    # A header that lies about the size is still stopped by the stream cap (or the CRC check).
    lying = bomb.replace((200 * MB).to_bytes(4, "little"), (5 * MB).to_bytes(4, "little"))
    with pytest.raises(ValueError, match="'lying.zip' is a damaged or unsupported zip file"):
        read_bytes(Upload(lying, name="lying.zip"), ALLOW)


def test_an_xz_header_asking_for_a_huge_dictionary_is_refused():
    packed = bytearray(lzma.compress(CSV, preset=0))
    header = slice(12, 12 + (packed[12] + 1) * 4)  # the first block header, after the 12-byte stream header
    block = packed[header]
    block[block.index(b"\x21\x01") + 2] = 39  # LZMA2 filter, dictionary size code 39: 3 GB
    block[-4:] = zlib.crc32(block[:-4]).to_bytes(4, "little")
    packed[header] = block
    peak = peak_bytes(lambda: read_bytes(bytes(packed), ALLOW))
    assert peak < MB  # refused before the dictionary is allocated
    with pytest.raises(ValueError, match="is a damaged or unsupported xz file \\(Memory usage limit exceeded\\)"):
        read_bytes(bytes(packed), ALLOW)


def test_zip_archives_must_hold_one_file():
    with pytest.raises(ValueError, match="zip archive of 2 files; it must hold exactly one"):
        read_csv(zip_of({"a.csv": CSV, "b.csv": CSV}), ALLOW)
    with pytest.raises(ValueError, match="zip archive of 0 files"):
        read_csv(zip_of({}), ALLOW)
    many = zip_of({f"{i}.csv": b"" for i in range(1000)})
    with pytest.raises(ValueError, match="zip archive of 1,000 entries; it must hold one file"):
        read_csv(many, ALLOW)
    # A folder entry and macOS's metadata beside the one file are fine.
    mac = zip_of({"data/": b"", "data/series.csv": CSV, "__MACOSX/data/._series.csv": b"\x00"})
    pd.testing.assert_frame_equal(read_csv(mac, ALLOW), FRAME)


def test_a_password_protected_zip_is_refused():
    packed = bytearray(zip_of({"series.csv": CSV}))
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers
        packed[packed.index(signature) + flags] |= 0x1
    with pytest.raises(ValueError, match="is password-protected"):
        read_csv(bytes(packed), ALLOW)


def test_damaged_nested_and_unsupported_archives_are_refused():
    with pytest.raises(ValueError, match="'cut.gz' is a damaged or unsupported gzip file"):
        read_csv(Upload(gzip.compress(CSV)[:-6], name="cut.gz"), ALLOW)
    with pytest.raises(ValueError, match="holds another compressed file: decompress it fully"):
        read_csv(gzip.compress(gzip.compress(CSV)), ALLOW)
    for magic, kind in ((b"(\xb5/\xfd", "zstd"), (b"7z\xbc\xaf'\x1c", "7z"), (b"Rar!\x1a\x07", "rar")):
        with pytest.raises(ValueError, match=f"is a {kind} archive; seqlab reads only gzip, bzip2, xz and single"):
            read_csv(magic + b"rest", ALLOW)


def test_raw_keeps_an_archive_as_it_is():
    packed = zip_of({"model.keras": b"weights"})
    assert read_bytes(packed, raw=True) == packed


# --- text -----------------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_byte_order_marks_decide_the_encoding(codec):
    text = "température,Größe\n1,2\n"
    data = text.encode(codec)
    if codec in ("utf-16-le", "utf-16-be", "utf-32-be"):  # the plain codecs write no BOM
        data = ("\ufeff" + text).encode(codec)
    assert decode_text(data) == text
    assert list(read_csv(data).columns) == ["température", "Größe"]


def test_utf8_text_keeps_every_character():
    text = "naïve café — 東京 🚀\n"
    assert read_text(text.encode()) == text
    assert detect_encoding(text.encode()) == "utf-8"


def test_latin1_prose_is_decoded_and_its_encoding_named():
    text = ("Die Schüler lesen über die Größe der Bäume. Äpfel fallen nicht weit vom Stamm, "
            "sagt man in Österreich.\n") * 3
    data = text.encode("latin-1")
    assert decode_text(data) == text
    assert detect_encoding(data) != "utf-8"  # for a note such as "read as cp1250"


def test_latin1_too_short_to_tell_is_refused_with_the_fix():
    data = "city,temp\nZürich,3\n".encode("latin-1")
    with pytest.raises(ValueError, match="'zh.csv' is not UTF-8 text \\(first non-UTF-8 byte at position 11\\)"
                                         ".*save it as UTF-8"):
        read_csv(Upload(data, name="zh.csv"))


def test_binary_data_is_refused():
    with pytest.raises(ValueError, match="'model.bin' contains NUL bytes, so it is binary data"):
        read_text(Upload(b"abc\x00def", name="model.bin"))
    # UTF-16 with a BOM decodes, but NUL characters inside are binary all the same.
    with pytest.raises(ValueError, match="contains NUL bytes"):
        read_text("ab\x00c".encode("utf-16"))
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        read_text(bytes(range(128, 256)))
    with pytest.raises(ValueError, match="byte-order mark but is not valid UTF-16"):
        read_text(b"\xff\xfea")


@pytest.mark.parametrize("data", [b"", b"  \n\t\r\n", b"\xef\xbb\xbf", " \n".encode("utf-16")])
def test_empty_text_is_refused(data):
    with pytest.raises(ValueError, match="'notes.txt' is empty \\(or only whitespace\\)"):
        read_text(Upload(data, name="notes.txt"))


def test_character_limit():
    limits = InputLimits(max_chars=10)
    assert read_text(b"0123456789", limits) == "0123456789"
    with pytest.raises(ValueError, match="has 11 characters; the limit is 10: use a shorter text"):
        read_text(b"0123456789a", limits)


# --- tables ---------------------------------------------------------------------------


@pytest.mark.parametrize("data, message", [
    (b"a,b\n1,2\n3\n", "line 3, has a different number of values \\(1\\) than its header has columns \\(2\\)"),
    (b"a,b\n1,2,3\n4,5\n", "line 2, has a different number of values \\(3\\)"),
    (b"a,b\n", "has a header \\['a', 'b'\\] but no data rows: add rows below it"),
    (b'"a\nb"\n', "has a header \\['a\\\\nb'\\] but no data rows"),
    (b"a,b\n\n\n", "but no data rows"),
    (b'""\n', "has no columns"),
    (b"a,b,a\n1,2,3\n", "names column\\(s\\) \\['a'\\] more than once: give every column its own name"),
    (b'a,b\n1,"2\n', "is not a readable CSV file \\(line 2: unexpected end of data\\).*balanced quotes"),
    (b'a,b\n"1"x,2\n', "is not a readable CSV file \\(line 2"),
])
def test_malformed_tables_are_refused(data, message):
    with pytest.raises(ValueError, match="'t.csv'.*" + message):
        read_csv(Upload(data, name="t.csv"))


def test_blank_lines_and_empty_values_are_fine():
    frame = read_csv(b"a,b\n1,\n\n3,4\n")
    assert frame.shape == (2, 2) and pd.isna(frame.loc[0, "b"])


def test_row_limit():
    rows = b"x\n" + b"1\n" * 5
    assert len(read_csv(rows, InputLimits(max_rows=5))) == 5
    with pytest.raises(ValueError, match="has more than 4 rows, the limit: use fewer rows"):
        read_csv(rows, InputLimits(max_rows=4))


def test_limits_are_checked():
    with pytest.raises(ValueError, match="max_bytes must be an integer >= 1"):
        InputLimits(max_bytes=0)
    with pytest.raises(ValueError, match="allow_compressed must be true or false"):
        InputLimits(allow_compressed="yes")


def test_the_cli_reads_its_csv_through_this_module(tmp_path):
    from seqlab.export import read_csv as export_read_csv

    (tmp_path / "recent.csv").write_bytes(gzip.compress(CSV))
    with pytest.raises(ValueError, match="'.*recent.csv' is compressed \\(gzip\\)"):
        export_read_csv(tmp_path / "recent.csv")


def _error(call, *args) -> str:
    try:
        call(*args)
    except ValueError as err:
        return str(err)
    return "no error"


def test_without_explicit_limits_the_servers_upload_limits_apply(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text("a\n" + "1\n" * 600_000)  # about 1.2 MB
    assert len(read_csv(path)) == 600_000  # the default 50 MB passes
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_MB", "1")
    with pytest.raises(ValueError, match="big.csv"):
        read_csv(path)
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_MB", "50")
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_ROWS", "1000")
    with pytest.raises(ValueError, match="1,000|1000"):
        read_csv(path)


def test_an_archive_member_is_inflated_within_its_cap_after_the_directory_checks():
    data = zip_of({"config.json": b"{}", "model.weights.h5": b"\0" * 3_000_000})  # 3 MB, a few KB deflated
    archive = open_archive(data, 4 << 20, "The model")
    assert read_member(archive, "config.json", 100, "The model") == b"{}"
    with pytest.raises(ValueError, match="The model is too big: its model.weights.h5 unpacks to more than 1.0 MB"):
        read_member(archive, "model.weights.h5", 1 << 20, "The model")
    with pytest.raises(ValueError, match="The model is too big: it unpacks to more than 1.0 MB"):
        check_members(archive, 1 << 20, "The model")
    with pytest.raises(ValueError, match="The model is too big: it unpacks to more than 1.0 MB"):
        open_archive(data, 1 << 20, "The model")  # from the declared sizes, before anything is inflated


@pytest.mark.parametrize("files, problem", [
    ({"a": b"", "a/b": b""}, "holds both a file and a folder named 'a'"),
    ({"a/": b"", "a/b": b"", "b/c": b"", "b": b""}, "holds both a file and a folder named 'b'"),
    ({"../x": b""}, "has an entry outside its folder"),
])
def test_an_archive_that_cannot_be_unpacked_is_refused_from_its_directory(files, problem):
    with pytest.raises(ValueError, match=f"The zip {problem}"):
        open_archive(zip_of(files), 1 << 20, "The zip")
