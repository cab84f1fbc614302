"""sframe_check.py against the SFrame working group's vectors (the ones the Swift tests use).

  .venv-interop/bin/python -m unittest discover -s Tests/Interop -p 'test_*.py'
"""
import json
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import sframe_check  # noqa: E402

VECTORS = os.path.join(here, "..", "SFrameTests", "Vectors", "rfc9605-test-vectors.json")


class SFrameCheckVectors(unittest.TestCase):
    def setUp(self):
        with open(VECTORS) as f:
            vectors = json.load(f)
        self.sframe = [v for v in vectors["sframe"] if int(v["cipher_suite"]) in sframe_check.GCM_SUITES]
        self.headers = vectors["header"]

    def test_gcm_vectors_derive_and_open(self):
        self.assertEqual([int(v["cipher_suite"]) for v in self.sframe], [4, 5])
        for v in self.sframe:
            suite, key_id = int(v["cipher_suite"]), int(v["kid"])
            base_key = bytes.fromhex(v["base_key"])
            key, salt = sframe_check.derive(base_key, key_id, suite)
            self.assertEqual((key.hex(), salt.hex()), (v["sframe_key"], v["sframe_salt"]))
            opener = sframe_check.FrameOpener(base_key, suite)
            plaintext = opener.open(bytes.fromhex(v["ct"]), bytes.fromhex(v["metadata"]))
            self.assertEqual(plaintext.hex(), v["pt"])

    def test_a_changed_byte_or_metadata_does_not_open(self):
        v = self.sframe[0]
        opener = sframe_check.FrameOpener(bytes.fromhex(v["base_key"]), int(v["cipher_suite"]))
        sealed = bytearray.fromhex(v["ct"])
        sealed[-1] ^= 1
        with self.assertRaises(sframe_check.OpenError):
            opener.open(bytes(sealed), bytes.fromhex(v["metadata"]))
        with self.assertRaises(sframe_check.OpenError):
            opener.open(bytes.fromhex(v["ct"]), b"other metadata")

    def test_every_header_vector_parses(self):
        for v in self.headers:
            encoded = bytes.fromhex(v["encoded"])
            self.assertEqual(sframe_check.parse_header(encoded), (v["kid"], v["ctr"], len(encoded)))
        with self.assertRaises(sframe_check.OpenError):
            sframe_check.parse_header(bytes([0x8f]))  # KID and CTR lengths with no bytes behind

    def test_vp8_clear_prefix(self):
        self.assertEqual(sframe_check.clear_vp8_bytes(bytes([0x10] + [0] * 20)), 10)  # key frame
        self.assertEqual(sframe_check.clear_vp8_bytes(bytes([0x11] + [0] * 20)), 3)
        self.assertEqual(sframe_check.clear_vp8_bytes(bytes([0x10, 0])), 2)

    def test_luma_psnr_tells_a_picture_from_noise(self):
        import random

        import av

        def picture(pixel):
            frame = av.VideoFrame(64, 48, "yuv420p")
            plane = frame.planes[0]
            plane.update(bytes(pixel(x, y) for y in range(48) for x in range(plane.line_size)))
            return sframe_check.luma_samples(frame)

        gradient = picture(lambda x, y: (x * 3 + y * 2) % 256)
        nearly = picture(lambda x, y: (x * 3 + y * 2 + (x + y) % 3) % 256)
        rng = random.Random(7)
        noise = picture(lambda x, y: rng.randrange(256))
        self.assertEqual(sframe_check.luma_psnr(gradient, gradient), float("inf"))
        self.assertGreater(sframe_check.luma_psnr(gradient, nearly), 40)
        self.assertLess(sframe_check.luma_psnr(gradient, noise), 12)
        self.assertIsNone(sframe_check.luma_psnr(gradient, (32, 24, gradient[2])))


if __name__ == "__main__":
    unittest.main()
