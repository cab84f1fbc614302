"""Checks, for the keyless Janus viewer, that what Janus forwarded was SFrame ciphertext (RFC 9605).

The viewer decodes without the key; this module is the referee that holds it. `open_vp8_frame`
opens one assembled VP8 frame as the engine seals it (the VP8 payload header in the clear, 3 bytes
or 10 on a key frame, RFC 7741 §4.3, authenticated as SFrame metadata; then the SFrame header,
ciphertext and tag), so a frame that opens proves the bytes Janus relayed were ciphertext under the
room key. `luma_psnr` compares what the keyless decoder drew with what the plaintext decodes to.

Only the AES-GCM suites are here (what `--e2ee-key` uses); key schedule per RFC 9605 §4.4.2,
nonce per §4.4.3, header per §4.3. Crypto from the `cryptography` package aiortc depends on.
"""
import hashlib
import hmac
import math

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

# suite id -> (hash, Nk, Nn); both GCM suites have a 16-byte tag, which AESGCM expects at the end.
GCM_SUITES = {
    0x0004: (hashlib.sha256, hashes.SHA256, 16, 12),
    0x0005: (hashlib.sha512, hashes.SHA512, 32, 12),
}


class OpenError(Exception):
    pass


def derive(base_key, key_id, suite=0x0004):
    """(sframe_key, sframe_salt) of RFC 9605 §4.4.2."""
    digest, hkdf_hash, nk, nn = GCM_SUITES[suite]
    secret = hmac.new(b"", base_key, digest).digest()  # HKDF-Extract with an empty salt
    info = lambda label: label + key_id.to_bytes(8, "big") + suite.to_bytes(2, "big")
    key = HKDFExpand(hkdf_hash(), nk, info(b"SFrame 1.0 Secret key ")).derive(secret)
    salt = HKDFExpand(hkdf_hash(), nn, info(b"SFrame 1.0 Secret salt ")).derive(secret)
    return key, salt


def parse_header(data):
    """(key id, counter, header length) of an SFrame header (RFC 9605 §4.3)."""
    if not data:
        raise OpenError("empty SFrame")
    config = data[0]
    at = 1

    def field(extended, value):
        nonlocal at
        if not extended:
            return value
        length = value + 1
        if at + length > len(data):
            raise OpenError("truncated SFrame header")
        number = int.from_bytes(data[at:at + length], "big")
        at += length
        return number

    key_id = field(config & 0x80, (config >> 4) & 0x07)
    counter = field(config & 0x08, config & 0x07)
    return key_id, counter, at


def clear_vp8_bytes(frame):
    """The clear VP8 payload header: 10 bytes on a key frame (P bit 0), 3 otherwise."""
    if not frame:
        return 0
    return min(len(frame), 10 if frame[0] & 0x01 == 0 else 3)


class FrameOpener:
    """Opens the engine's E2EE VP8 frames with one base key (any key id, derived on first use)."""

    def __init__(self, base_key, suite=0x0004):
        self.base_key = base_key
        self.suite = suite
        self.keys = {}

    def open(self, sealed, metadata=b""):
        """The plaintext of header || ciphertext || tag, `metadata` authenticated with the header."""
        key_id, counter, header_length = parse_header(sealed)
        if key_id not in self.keys:
            key, salt = derive(self.base_key, key_id, self.suite)
            self.keys[key_id] = (AESGCM(key), salt)
        aead, salt = self.keys[key_id]
        nonce = bytes(a ^ b for a, b in zip(salt, counter.to_bytes(len(salt), "big")))
        header = sealed[:header_length]
        try:
            return aead.decrypt(nonce, sealed[header_length:], header + metadata)
        except Exception as e:
            raise OpenError(f"tag did not verify (key id {key_id}, counter {counter}): {e!r}") from None

    def open_vp8_frame(self, frame):
        """An assembled VP8 frame as the engine seals it: clear payload header, then the SFrame."""
        frame = bytes(frame)
        clear = clear_vp8_bytes(frame)
        return frame[:clear] + self.open(frame[clear:], frame[:clear])


def luma_samples(video_frame, step=4):
    """(width, height, Y bytes on every `step`-th row and column) of a PyAV VideoFrame."""
    plane = video_frame.planes[0]
    data = bytes(plane)
    width, height, stride = video_frame.width, video_frame.height, plane.line_size
    samples = b"".join(data[y * stride:y * stride + width:step] for y in range(0, height, step))
    return width, height, samples


def luma_psnr(a, b):
    """PSNR in dB between two `luma_samples` of one picture size (None for different sizes)."""
    (wa, ha, sa), (wb, hb, sb) = a, b
    if (wa, ha) != (wb, hb) or len(sa) != len(sb) or not sa:
        return None
    total = sum((x - y) * (x - y) for x, y in zip(sa, sb))
    if total == 0:
        return math.inf
    return 10 * math.log10(255 * 255 / (total / len(sa)))
