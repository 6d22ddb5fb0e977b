package org.clustersim.strategies.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Consecutive steps of bare schedules on uniform stages with free communication: the bubble
 * that remains once steps overlap as each schedule lets them, against values worked out by
 * hand from the closed forms of the shared reference (pipeline-bubbles.md), in ns with F = 1000.
 */
class SteadyStateScheduleTest {
    private static ScheduleStudy.Result run(ScheduleKind kind, int p, int m, long f, long bi, long w, int steps) {
        PipelineSchedule s = kind.schedule(kind.takesChunks() ? 2 : kind.fixedChunks());
        return new ScheduleStudy(s, p, m, UniformCosts.of(f, bi, w, s, p, m), 0).run(steps);
    }

    @Test
    void zbH2sNextStepFillsItsCoolDownSoNoRankIdlesWhenPassesAreEqual() {
        // p = 4, m = 8, F = Bi = W: the reference's ZB-H2 bubble (p-1)(F+Bi-2W) = 0
        ScheduleStudy.Result three = run(ScheduleKind.ZB_H2, 4, 8, 1000, 1000, 1000, 3);
        assertEquals(8 * 3000, three.stepTime(), "step time m(F+Bi+W)");
        for (int r = 0; r < 4; r++) {
            assertEquals(0, three.steadyIdle(r), "rank " + r);
        }
        // one step alone cannot fill the pipeline: the last rank waits (p-1)F = 3000 to start
        ScheduleStudy.Result one = run(ScheduleKind.ZB_H2, 4, 8, 1000, 1000, 1000, 1);
        assertEquals(3000, one.maxIdle());
        assertEquals(3000, one.maxSteadyIdle(), "with one step the steady view is the step itself");
    }

    @Test
    void zbH2sSteadyStateBubbleIsThePublishedOneWhenPassesDiffer() {
        // p = 4, F = 1, Bi = 1.2, W = 0.8: (p-1)(F+Bi-2W) = 3 x 0.6 = 1.8 (the reference's worked value)
        ScheduleStudy.Result r = run(ScheduleKind.ZB_H2, 4, 8, 1000, 1200, 800, 3);
        assertEquals(1800, r.maxSteadyIdle());
        assertEquals(8 * 3000 + 1800, r.stepTime());
        // p = 8, m = 16, equal passes: still 0
        assertEquals(0, run(ScheduleKind.ZB_H2, 8, 16, 1000, 1000, 1000, 3).maxSteadyIdle());
    }

    @Test
    void oneFOneBKeepsItsBubbleInTheSteadyState() {
        // 1F1B's rank 0 ends a step last and starts the next first: nothing overlaps, so every rank
        // still idles (p-1)(F+Bf) per step: p = 4, F = 1, Bf = 2: 9 of 8 x 3 + 9 = 33, (p-1)/(m+p-1) = 3/11
        ScheduleStudy.Result r = run(ScheduleKind.ONE_F_ONE_B, 4, 8, 1000, 1000, 1000, 3);
        assertEquals(33_000, r.stepTime());
        for (int rank = 0; rank < 4; rank++) {
            assertEquals(9000, r.steadyIdle(rank), "rank " + rank);
        }
        assertEquals(3.0 / 11, (double) r.maxSteadyIdle() / r.stepTime(), 1e-12);
        // p = 8, m = 16: 21 of 69, 7/23
        ScheduleStudy.Result big = run(ScheduleKind.ONE_F_ONE_B, 8, 16, 1000, 1000, 1000, 3);
        assertEquals(21_000, big.maxSteadyIdle());
        assertEquals(69_000, big.stepTime());
    }

    @Test
    void zbVOverlapsConsecutiveStepsToZeroWithEqualPasses() {
        // one step: the last rank starts (p-1)F/2 late (chunks are half a rank's share): 1500 at p = 4
        assertEquals(1500, run(ScheduleKind.ZB_V, 4, 8, 1000, 1000, 1000, 1).maxIdle());
        ScheduleStudy.Result r = run(ScheduleKind.ZB_V, 4, 8, 1000, 1000, 1000, 3);
        assertEquals(0, r.maxSteadyIdle());
        assertEquals(24_000, r.stepTime());
    }

    @Test
    void zbH2sSteadyStateMatchesThePublishedFormAcrossTheGrid() {
        // inside the form's conditions (m >= 2p-1, F+Bi >= 2W), the measured steady state equals
        // the reference's closed form on every rank count and ratio tried
        long[][] ratios = {{1000, 1000, 1000}, {1000, 1200, 800}, {1000, 1500, 500}, {1000, 2000, 0}};
        for (int p : new int[] {2, 4, 8}) {
            for (int m : new int[] {2 * p - 1, 2 * p, 4 * p}) {
                for (long[] r : ratios) {
                    double oracle = AnalyticalBubble.bubble(ScheduleKind.ZB_H2, p, 1, r[0], r[1], r[2],
                            r[0] + r[1] + r[2]);
                    ScheduleStudy.Result res = run(ScheduleKind.ZB_H2, p, m, r[0], r[1], r[2], 3);
                    String c = "p=" + p + " m=" + m + " " + r[0] + ":" + r[1] + ":" + r[2];
                    assertEquals(oracle, res.maxSteadyIdle(), 1.0, c);
                    assertEquals(m * (r[0] + r[1] + r[2]) + oracle, res.stepTime(), 1.0, c);
                }
            }
        }
    }

    @Test
    void consecutiveStepsHoldNoMoreActivationsThanReallyOverlap() {
        // ZB-H2 holds 2p-1 microbatches, 1F1B p, whether one step runs or three back to back
        assertEquals(7, run(ScheduleKind.ZB_H2, 4, 8, 1000, 1000, 1000, 3).peakActivations(), 1e-12);
        assertEquals(4, run(ScheduleKind.ONE_F_ONE_B, 4, 8, 1000, 1000, 1000, 3).peakActivations(), 1e-12);
    }

    @Test
    void everyStepIsListedWithItsSpan() {
        ScheduleStudy.Result r = run(ScheduleKind.ONE_F_ONE_B, 4, 8, 1000, 1000, 1000, 3);
        assertEquals(3, r.steps().count());
        for (int n = 0; n < 3; n++) {
            assertEquals(33_000L * n, r.steps().start(n));
            assertEquals(33_000L * (n + 1), r.steps().end(n));
        }
    }
}
