"""Offline checks of janus_viewer.py's measurements on synthetic frame timelines (no Janus needed).

  .venv-interop/bin/python -m unittest discover -s Tests/Interop -p 'test_*.py'
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import janus_viewer as jv  # noqa: E402


class NoErrors:
    count = 0
    samples = []
    times = []


def timeline(segments, fps=30.0, start=100.0):
    """[(seconds, "WxH", keep_every_nth)] -> [(t, res)] at `fps`."""
    frames, t = [], start
    for seconds, res, nth in segments:
        n = int(round(seconds * fps))
        for i in range(n):
            if i % nth == 0:
                frames.append((t + i / fps, res))
        t += n / fps
    return frames


def run(frames, requests, argv=(), end=None, incomplete=()):
    args = jv.parse_args(["--url", "http://x/janus", *argv])
    t0 = frames[0][0]
    end = end if end is not None else frames[-1][0] + 1 / 30.0
    expected = args.resolutions.split(",")
    return jv.summarize(args, frames, requests, [], expected, NoErrors(), t0 - 0.5, t0, end, (), incomplete)


class SummarizeTests(unittest.TestCase):
    def test_a_frame_cut_short_passes_only_just_before_a_switch(self):
        frames = timeline([(4, "320x180", 1), (2, "640x360", 1)])
        t0 = frames[0][0]
        switch_at = t0 + 4.0  # the first 640x360 frame
        requests = [(t0 + 3.9, "substream", 1)]
        result, status = run(frames, requests, incomplete=[switch_at - 0.02])
        self.assertEqual(status, 0, result["failures"])
        self.assertEqual(len(result["incomplete_frames_at_ms"]), 1)
        result, status = run(frames, requests, incomplete=[switch_at - 0.02, t0 + 2.0])
        self.assertEqual(status, 1)
        self.assertIn("1 frames arrived without their last packet away from a substream switch", result["failures"])

    def test_switch_latency_and_frame_counts(self):
        frames = timeline([(4, "320x180", 1), (4.1, "640x360", 1)])
        t0 = frames[0][0]
        # Request substream 1 at 3.9 s: the first 640x360 frame is at 4.0 s.
        result, status = run(frames, [(t0 - 0.1, "substream", 0), (t0 + 3.9, "substream", 1)],
                             ["--require-switches", "--max-switch-ms", "150"])
        self.assertEqual(status, 0, result["failures"])
        self.assertEqual(result["frames_by_resolution"], {"320x180": 120, "640x360": 123})
        switch = result["switches"][1]
        self.assertFalse(switch["initial"])
        self.assertAlmostEqual(switch["latency_ms"], 100.0, delta=1.0)
        self.assertEqual(switch["transit_frames"], 0)
        self.assertTrue(result["switches"][0]["initial"])

    def test_overshoot_is_reported_and_slow_switch_fails(self):
        frames = timeline([(2, "320x180", 1), (0.1, "1280x720", 1), (2, "640x360", 1)])
        t0 = frames[0][0]
        result, status = run(frames, [(t0 + 1.9, "substream", 1)], ["--max-switch-ms", "150"])
        switch = result["switches"][0]
        self.assertEqual(switch["transit_resolutions"], ["1280x720"])
        self.assertEqual(switch["transit_frames"], 3)
        self.assertAlmostEqual(switch["latency_ms"], 200.0, delta=1.0)
        self.assertEqual(status, 1)
        self.assertIn("switch took", result["failures"][0])

    def test_missing_resolution_fails_only_when_required(self):
        frames = timeline([(3, "320x180", 1)])
        t0 = frames[0][0]
        _, status = run(frames, [(t0 + 1, "substream", 2)])
        self.assertEqual(status, 0)
        result, status = run(frames, [(t0 + 1, "substream", 2)], ["--require-switches"])
        self.assertEqual(status, 1)
        self.assertIsNone(result["switches"][0]["latency_ms"])

    def test_temporal_rate_per_period(self):
        # 30 fps, then every 4th frame (temporal 0), then 30 fps again (temporal 2).
        frames = timeline([(3, "1280x720", 1), (3, "1280x720", 4), (3, "1280x720", 1)])
        t0 = frames[0][0]
        result, _ = run(frames, [(t0 + 3, "temporal", 0), (t0 + 6, "temporal", 2)], ["--settle", "0"])
        fps = result["fps_by_temporal"]
        self.assertAlmostEqual(fps["0"], 7.5, delta=0.5)
        self.assertAlmostEqual(fps["2"], 30.0, delta=0.5)

    def test_stall_until_the_end_counts_as_a_gap(self):
        frames = timeline([(2, "320x180", 1)])
        result, status = run(frames, [], ["--max-gap-ms", "1000"], end=frames[-1][0] + 3.0)
        self.assertEqual(status, 1)
        self.assertAlmostEqual(result["max_frame_gap_ms"], 3000.0, delta=1.0)

    def test_schedule_parsing(self):
        self.assertEqual(jv.parse_schedule("8:2, 0:0,4:1", "s"), [(0.0, 0), (4.0, 1), (8.0, 2)])
        with self.assertRaises(SystemExit):
            jv.parse_schedule("4-1", "s")


if __name__ == "__main__":
    unittest.main()
