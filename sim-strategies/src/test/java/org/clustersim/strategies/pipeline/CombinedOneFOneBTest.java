package org.clustersim.strategies.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** Megatron-core's combined 1F1B order (overlap_moe_expert_parallel_comm), read back from the programs. */
class CombinedOneFOneBTest {

    private static String program(PipelineSchedule s, int rank, int ranks, int m) {
        return s.program(rank, ranks, m).stream().map(Object::toString).collect(Collectors.joining(" "));
    }

    @Test
    void withoutPipeliningEachForwardRunsWithThePreviousMicrobatchsBackward() {
        // combined_1f1b_schedule_for_no_pipelining: F0 alone, then (F i+1, B i), then B last alone
        PipelineSchedule s = new CombinedOneFOneB(new OneFOneBSchedule());
        assertEquals("F0 F1&B0 F2&B1 F3&B2 B3", program(s, 0, 1, 4));
    }

    @Test
    void interleavedWarmsUpOneMoreForwardThenPairsEveryForwardWithABackward() {
        // p = 2, v = 2, m = 4: the interleaved rank 1 warms up with 2(p - r - 1) + (v - 1) p = 2 forwards
        // and runs F B alternately; combined, its warm-up is 3 forwards (get_pp_rank_microbatches' + 1)
        PipelineSchedule base = new InterleavedSchedule(2);
        assertEquals("F0 F1 F0c1 B0c1 F1c1 B1c1 F2 B0 F3 B1 F2c1 B2c1 F3c1 B3c1 B2 B3", program(base, 1, 2, 4));
        PipelineSchedule s = new CombinedOneFOneB(base);
        assertEquals("F0 F1 F0c1 F1c1&B0c1 F2&B1c1 F3&B0 F2c1&B1 F3c1&B2c1 B3c1 B2 B3", program(s, 1, 2, 4));
        // the order of forwards and of backwards is the base's on every rank
        for (int r = 0; r < 2; r++) {
            List<PipelineOp> ops = s.program(r, 2, 8);
            List<String> fs = new java.util.ArrayList<>();
            List<String> bs = new java.util.ArrayList<>();
            for (PipelineOp op : ops) {
                if (op instanceof PipelineOp.Overlapped o) {
                    fs.add(o.forward().toString());
                    bs.add(o.backward().toString());
                } else {
                    (op.toString().startsWith("F") ? fs : bs).add(op.toString());
                }
            }
            List<String> baseF = new java.util.ArrayList<>();
            List<String> baseB = new java.util.ArrayList<>();
            for (PipelineOp op : base.program(r, 2, 8)) {
                (op.toString().startsWith("F") ? baseF : baseB).add(op.toString());
            }
            assertEquals(baseF, fs);
            assertEquals(baseB, bs);
        }
    }

    @Test
    void runsWithoutDeadlockAndOverlapsWhatTheBaseRanInTurn() {
        for (int p : new int[] {2, 4, 8}) {
            for (int v : new int[] {2, 3}) {
                for (int m : new int[] {p, 2 * p, 4 * p}) {
                    PipelineSchedule plain = new InterleavedSchedule(v);
                    PipelineSchedule comb = new CombinedOneFOneB(new InterleavedSchedule(v));
                    var base = new ScheduleStudy(plain, p, m, UniformCosts.of(1000, 1000, 0, plain, p, m), 0).run();
                    var combined = new ScheduleStudy(comb, p, m, UniformCosts.of(1000, 1000, 0, comb, p, m)
                            .withOverlapped(1500), 0).run();
                    // every rank does all its work; a pair costs F&B = 1.5 where F then B cost 2
                    assertEquals(true, combined.makespan() <= base.makespan() + 1e-9,
                            "p=" + p + " v=" + v + " m=" + m + ": " + combined.makespan() + " vs " + base.makespan());
                }
            }
        }
    }

    @Test
    void megatronAllowsItOnlyUnderTheInterleavedScheduleWhenPipelined() {
        assertThrows(IllegalArgumentException.class, () -> new CombinedOneFOneB(new OneFOneBSchedule()).validate(2, 4));
        assertThrows(IllegalArgumentException.class, () -> new CombinedOneFOneB(new GPipeSchedule()));
    }
}
