"""FrameGate: what a stream brings is shown at once when a frame has passed, else once when it has."""

import asyncio

from sitewalk.base.frames import FrameGate


def test_the_first_change_is_shown_at_once_and_the_rest_of_the_frame_once_when_asked():
    flushes = []
    gate = FrameGate(lambda: flushes.append(len(flushes)), interval_s=60)  # a frame longer than the test

    async def go():
        gate.soon()
        for _ in range(20):
            gate.soon()
        assert flushes == [0]  # the twenty that followed wait for the frame
        gate.now()
        gate.now()  # nothing new: nothing flushed
        gate.cancel()

    asyncio.run(go())
    assert flushes == [0, 1]


def test_a_stream_that_pauses_gets_its_last_change_shown_after_the_frame():
    flushes = []
    gate = FrameGate(lambda: flushes.append(len(flushes)), interval_s=0.01)

    async def go():
        gate.soon()
        gate.soon()
        gate.soon()
        await asyncio.sleep(0.1)  # the stream pauses: the trailing flush comes anyway

    asyncio.run(go())
    assert flushes == [0, 1]


def test_a_cancelled_gate_flushes_nothing_later():
    flushes = []
    gate = FrameGate(lambda: flushes.append(len(flushes)), interval_s=0.01)

    async def go():
        gate.soon()
        gate.soon()
        gate.cancel()
        await asyncio.sleep(0.1)

    asyncio.run(go())
    assert flushes == [0]


def test_without_an_event_loop_each_change_is_shown_at_once():
    flushes = []
    gate = FrameGate(lambda: flushes.append(len(flushes)), interval_s=60)
    gate.soon()
    gate.soon()
    assert flushes == [0, 1]
