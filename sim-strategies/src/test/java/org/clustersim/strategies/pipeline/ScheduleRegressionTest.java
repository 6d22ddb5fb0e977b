package org.clustersim.strategies.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The regression suite against the analytical bubble formulas of
 * ../shared/reference/pipeline-bubbles.md: every schedule, a grid of p, m and F:Bi:W, free
 * communication and uniform stages. The bubble is measured from the simulated timeline and
 * compared with the closed form (AnalyticalBubble) inside the conditions under which the closed
 * form holds; docs/validation.md explains each condition and each departure.
 */
class ScheduleRegressionTest {
    /** F:Bi:W ratios, times in ns for F = 1000: equal, full backward only, the reference's uneven case, and another. */
    static final long[][] RATIOS = {{1000, 1000, 1000}, {1000, 2000, 0}, {1000, 1200, 800}, {1000, 1500, 500}};

    record Case(ScheduleKind kind, int p, int m, int v, long f, long bi, long w) {
        PipelineSchedule schedule() {
            return kind.schedule(v);
        }

        ScheduleStudy.Result run() {
            PipelineSchedule s = schedule();
            return new ScheduleStudy(s, p, m, UniformCosts.of(f, bi, w, s, p, m), 0).run();
        }

        double oracle() {
            return AnalyticalBubble.bubble(kind, p, v, f, bi, w, f + bi + w);
        }

        @Override
        public String toString() {
            return kind.id() + " p=" + p + " m=" + m + (v > 1 ? " v=" + v : "") + " F:Bi:W=" + f + ":" + bi + ":" + w;
        }
    }

    /** Every valid (schedule, p, m, v) of the grid with every ratio. */
    static List<Case> grid() {
        List<Case> out = new ArrayList<>();
        for (ScheduleKind k : ScheduleKind.values()) {
            for (int v : k.takesChunks() ? new int[] {2, 3} : new int[] {1}) {
                for (int p : new int[] {2, 4, 8, 16}) {
                    for (int m : new int[] {1, p - 1, p, p + 1, 2 * p - 1, 2 * p, 3 * p, 4 * p, 8 * p}) {
                        if (m < 1 || !valid(k.schedule(v), p, m)) {
                            continue;
                        }
                        for (long[] r : RATIOS) {
                            out.add(new Case(k, p, m, v, r[0], r[1], r[2]));
                        }
                    }
                }
            }
        }
        return out.stream().distinct().toList();
    }

    static boolean valid(PipelineSchedule s, int p, int m) {
        try {
            s.validate(p, m);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static Stream<Arguments> cases() {
        return grid().stream().map(Arguments::of);
    }

    private static void assertClose(double expected, double measured, String what) {
        double tolerance = Math.max(1, Math.abs(expected) * 1e-3);
        assertTrue(Math.abs(expected - measured) <= tolerance, what + ": expected " + expected + ", measured "
                + measured);
    }

    /** Runs every case once: it must not deadlock, and each rank must do exactly its share of work. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyValidCaseRunsAndDoesAllItsWork(Case c) {
        ScheduleStudy.Result r = c.run();
        // every microbatch crosses each rank's share of one model copy once, forward and backward
        for (int rank = 0; rank < c.p(); rank++) {
            long busy = r.makespan() - r.idle(rank);
            assertClose(c.m() * (c.f() + c.bi() + c.w()), busy, c + " busy time of rank " + rank);
        }
        check(c, r);
    }

    /** The closed-form comparisons, each inside the conditions under which its paper states it. */
    private static void check(Case c, ScheduleStudy.Result r) {
        int p = c.p();
        int m = c.m();
        switch (c.kind()) {
            case GPIPE, ONE_F_ONE_B -> {
                for (int rank = 0; rank < p; rank++) {
                    assertClose(c.oracle(), r.idle(rank), c + " idle of rank " + rank);
                }
                assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, 1), r.peakActivations(), c + " peak");
            }
            case INTERLEAVED -> {
                for (int rank = 0; rank < p; rank++) {
                    assertClose(c.oracle(), r.idle(rank), c + " idle of rank " + rank);
                }
                if (m >= 2 * p) {
                    assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, c.v()), r.peakActivations(),
                            c + " peak");
                }
            }
            case ZB_H1 -> {
                if (m >= p && c.w() <= c.f()) {
                    for (int rank = 0; rank < p; rank++) {
                        assertClose(c.oracle(), r.idle(rank), c + " idle of rank " + rank);
                    }
                }
                assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, 1), r.peakActivations(), c + " peak");
            }
            case ZB_H2 -> {
                if (m >= 2 * p - 1 && c.f() + c.bi() >= 2 * c.w()) {
                    // Zero bubble needs consecutive steps to overlap (the paper's optimizer post-validation):
                    // the closed form is the worst rank's idle within its own active span.
                    assertClose(c.oracle(), r.maxSpanIdle(), c + " worst own-span idle");
                    // In one synchronous step the last rank still starts (p - 1) F late.
                    assertClose(Math.max(c.oracle(), (p - 1) * c.f()), r.maxIdle(), c + " step idle");
                }
                assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, 1), r.peakActivations(), c + " peak");
            }
            case ZB_V -> {
                if (m >= 2 * p - 1 && c.f() == c.bi() && c.bi() == c.w()) {
                    assertClose(0, r.maxSpanIdle(), c + " worst own-span idle");
                    assertClose((p - 1) * c.f() / 2.0, r.maxIdle(), c + " step idle");
                }
                assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, 1), r.peakActivations(), c + " peak");
            }
            case DUALPIPE, DUALPIPE_V -> {
                if (c.f() == c.bi() && c.bi() == c.w()) {
                    assertClose(c.oracle(), r.maxIdle(), c + " worst rank's idle");
                }
                assertClose(AnalyticalBubble.peakActivations(c.kind(), p, m, 1), r.peakActivations(), c + " peak");
            }
        }
    }

    @Test
    void theGridCoversEverySchedule() {
        List<Case> g = grid();
        for (ScheduleKind k : ScheduleKind.values()) {
            assertTrue(g.stream().anyMatch(c -> c.kind() == k && c.p() == 8), k + " at p=8");
        }
        assertTrue(g.size() > 300, "grid size " + g.size());
    }

    @Test
    void dualPipeMatchesItsFormulaForEveryOverlapWhenFEqualsBiEqualsW() {
        for (ScheduleKind k : new ScheduleKind[] {ScheduleKind.DUALPIPE, ScheduleKind.DUALPIPE_V}) {
            for (int p : new int[] {2, 4, 6, 8, 16}) {
                for (long fb : new long[] {3000, 2500, 2000}) {
                    int m = 2 * p + 4;
                    PipelineSchedule s = k.schedule(1);
                    var r = new ScheduleStudy(s, p, m, UniformCosts.of(1000, 1000, 1000, s, p, m).withOverlapped(fb),
                            0).run();
                    assertClose(AnalyticalBubble.bubble(k, p, 1, 1000, 1000, 1000, fb), r.maxIdle(),
                            k.id() + " p=" + p + " F&B=" + fb);
                }
            }
        }
    }

    @Test
    void workedValuesOfTheReferenceAtP8() {
        // p = 8, F = Bi = W = 1 (Bf = 2), F&B = 3, in units of F = 1000 ns
        assertEquals(21000, run(ScheduleKind.ONE_F_ONE_B, 1, 8, 32).maxIdle());
        assertEquals(21000, run(ScheduleKind.GPIPE, 1, 8, 32).maxIdle());
        assertEquals(10500, run(ScheduleKind.INTERLEAVED, 2, 8, 32).maxIdle());
        assertEquals(7000, run(ScheduleKind.ZB_H1, 1, 8, 32).maxIdle());
        assertEquals(0, run(ScheduleKind.ZB_H2, 1, 8, 32).maxSpanIdle());
        assertEquals(6000, run(ScheduleKind.DUALPIPE, 1, 8, 32).maxIdle());
    }

    private static ScheduleStudy.Result run(ScheduleKind k, int v, int p, int m) {
        PipelineSchedule s = k.schedule(v);
        return new ScheduleStudy(s, p, m, UniformCosts.of(1000, 1000, 1000, s, p, m), 0).run();
    }

    @Test
    void latencyLengthensEveryScheduleAndTheOrderIsReported() {
        List<String> order = new ArrayList<>();
        int p = 4;
        int m = 8;
        for (ScheduleKind k : ScheduleKind.values()) {
            PipelineSchedule s = k.schedule(k.takesChunks() ? 2 : 1);
            UniformCosts costs = UniformCosts.of(1000, 1000, 1000, s, p, m);
            long free = new ScheduleStudy(s, p, m, costs, 0).run().makespan();
            long slow = new ScheduleStudy(s, p, m, costs, 100).run().makespan();
            assertTrue(slow > free, k.id() + ": " + slow + " vs " + free);
            order.add(String.format("%s %d", k.id(), slow));
        }
        System.out.println("makespan with 200 ns per send, p=4 m=8 F=Bi=W=1us: " + order);
    }

    @Test
    void aSlowStageLengthensEveryScheduleByAtLeastItsExtraWorkOnOneMicrobatchPath() {
        int p = 4;
        int m = 8;
        for (ScheduleKind k : ScheduleKind.values()) {
            PipelineSchedule s = k.schedule(k.takesChunks() ? 2 : 1);
            UniformCosts costs = UniformCosts.of(1000, 1000, 1000, s, p, m);
            var base = new ScheduleStudy(s, p, m, costs, 0).run();
            var slowed = new ScheduleStudy(s, p, m, costs.withSlowRank(1, 1.2), 0).run();
            long baseBusy = base.makespan() - base.idle(1);
            long slowBusy = slowed.makespan() - slowed.idle(1);
            assertClose(1.2 * baseBusy, slowBusy, k.id() + " busy time of the slowed rank");
            // every microbatch crosses rank 1 forward and backward: at least 20% of one F + Bf is added
            double share = s.placement(p, m).chunkShare();
            assertTrue(slowed.makespan() - base.makespan() >= 0.2 * 3000 * share,
                    k.id() + ": grew by " + (slowed.makespan() - base.makespan()));
            assertTrue(slowed.makespan() >= slowBusy, k.id());
        }
    }

    /**
     * DualPipe and DualPipeV phase counts of the reference table, read back from the emitted
     * programs by their patterns (not from the generator's own loop counters).
     */
    @Test
    void dualPipePhaseCountsMatchTheTable() {
        for (boolean v : new boolean[] {false, true}) {
            for (int ranks : new int[] {2, 4, 6, 8}) {
                for (int m : new int[] {2 * ranks, 2 * ranks + 2, 4 * ranks}) {
                    PipelineSchedule s = new DualPipeSchedule(v);
                    for (int r = 0; r < ranks; r++) {
                        List<PipelineOp> ops = s.program(r, ranks, m);
                        int half = v ? ranks : ranks / 2;
                        int h = v ? r : Math.min(r, ranks - 1 - r);
                        int perDirection = v ? m : m / 2;
                        boolean middle = v ? r == ranks - 1 : (r == ranks / 2 - 1 || r == ranks / 2);
                        String where = s.name() + " R=" + ranks + " m=" + m + " rank " + r;
                        // phases 1 and 2: chunk-0 forwards before the first chunk-1 forward
                        assertEquals((half - h - 1) * 2 + 1, leadingForwardsOfChunk0(ops), where + " phase 1");
                        // phase 3: Bi of chunk 1, then a W, then a forward of chunk 1
                        assertEquals(half - h - 1, count(ops, "Bi1 W F1"), where + " phase 3");
                        // phases 4 and 5: overlapped pairs (the middle rank's first pair runs unoverlapped)
                        int phase4 = perDirection - 2 * half + h + 1;
                        assertEquals(2 * phase4 - (middle ? 1 : 0) + (half - h - 1), pairs(ops), where + " pairs");
                        // phase 7: a W, then Bi of chunk 0
                        assertEquals(half - h - 1, count(ops, "W Bi0"), where + " phase 7");
                        // phase 8: trailing W passes
                        assertEquals(h + 1, trailingW(ops), where + " phase 8");
                    }
                }
            }
        }
    }

    private static int leadingForwardsOfChunk0(List<PipelineOp> ops) {
        int n = 0;
        for (PipelineOp op : ops) {
            if (op instanceof PipelineOp.Action a && a.kind() == ActionKind.FORWARD && a.chunk() == 0) {
                n++;
            } else {
                break;
            }
        }
        return n;
    }

    private static String token(PipelineOp op) {
        if (op instanceof PipelineOp.Action a) {
            return switch (a.kind()) {
                case FORWARD -> "F" + a.chunk();
                case BACKWARD -> "B" + a.chunk();
                case BACKWARD_INPUT -> "Bi" + a.chunk();
                case BACKWARD_WEIGHT -> "W";
            };
        }
        return "X";
    }

    private static int count(List<PipelineOp> ops, String pattern) {
        String[] want = pattern.split(" ");
        int n = 0;
        for (int i = 0; i + want.length <= ops.size(); i++) {
            boolean match = true;
            for (int j = 0; j < want.length && match; j++) {
                match = token(ops.get(i + j)).equals(want[j]);
            }
            n += match ? 1 : 0;
        }
        return n;
    }

    private static int pairs(List<PipelineOp> ops) {
        return (int) ops.stream().filter(o -> o instanceof PipelineOp.Overlapped).count();
    }

    private static int trailingW(List<PipelineOp> ops) {
        int n = 0;
        for (int i = ops.size() - 1; i >= 0 && token(ops.get(i)).equals("W"); i--) {
            n++;
        }
        return n;
    }

    @Test
    void invalidCombinationsAreRejectedBeforeSimulation() {
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.DUALPIPE.schedule(1).validate(3, 12));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.DUALPIPE.schedule(1).validate(4, 7));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.DUALPIPE.schedule(1).validate(4, 6));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.DUALPIPE_V.schedule(1).validate(4, 7));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.INTERLEAVED.schedule(2).validate(4, 6));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.INTERLEAVED.schedule(1));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.ZB_V.schedule(3));
        assertThrows(IllegalArgumentException.class, () -> ScheduleKind.ONE_F_ONE_B.schedule(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PipelineProgram(ScheduleKind.DUALPIPE.schedule(1), 4, 6,
                        UniformCosts.of(1, 1, 1, ScheduleKind.ONE_F_ONE_B.schedule(1), 4, 6), 0));
        assertTrue(e.getMessage().contains("m >= 2p"), e.getMessage());
    }
}
