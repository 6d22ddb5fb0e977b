package org.clustersim.strategies.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * GPipe and 1F1B simulated on uniform stages: the measured step time and per-stage idle time
 * must equal the closed forms of ../shared/reference/pipeline-bubbles.md, which serve only as
 * oracles here.
 */
class PipelineTimelineTest {

    /** p GPUs on one NVSwitch with the given per-hop latency. */
    static Topology node(int p, long hopLatencyNs) {
        return new SwitchedClusterSpec("test", AcceleratorSpec.H100_SXM, 1, p, 450e9, hopLatencyNs, 50e9, 0, 0)
                .build();
    }

    static Timeline simulate(PipelineSchedule schedule, int p, int m, long f, long b, long hopLatencyNs,
                             long bytes) {
        TaskGraph.Builder g = TaskGraph.builder();
        int[] devices = new int[p];
        for (int r = 0; r < p; r++) {
            devices[r] = g.device("gpu" + r, 0);
        }
        // a full backward of b ns: Bi = b, W = 0
        new PipelineProgram(schedule, p, m, UniformCosts.of(f, b, 0, schedule, p, m), bytes).addTo(g, devices);
        return Simulation.run(g.build(), node(p, hopLatencyNs));
    }

    static Stream<Arguments> grid() {
        List<Arguments> out = new ArrayList<>();
        for (PipelineSchedule s : List.of(new GPipeSchedule(), new OneFOneBSchedule())) {
            for (int p : new int[] {1, 2, 3, 4, 8, 16}) {
                for (int m : new int[] {1, 2, p - 1, p, p + 1, 2 * p, 8 * p}) {
                    if (m >= 1) {
                        for (long[] fb : new long[][] {{1000, 2000}, {700, 1300}, {1000, 1000}}) {
                            out.add(Arguments.of(s, p, m, fb[0], fb[1]));
                        }
                    }
                }
            }
        }
        return out.stream().distinct();
    }

    @ParameterizedTest(name = "{0} p={1} m={2} F={3} B={4}")
    @MethodSource("grid")
    void stepTimeAndIdleMatchTheClosedForm(PipelineSchedule schedule, int p, int m, long f, long b) {
        Timeline t = simulate(schedule, p, m, f, b, 0, 0);
        assertEquals((long) (m + p - 1) * (f + b), t.makespan(), "makespan (m + p - 1)(F + B)");
        for (int r = 0; r < p; r++) {
            assertEquals((long) (p - 1) * (f + b), t.computeIdle(r), "idle of stage " + r + " is (p - 1)(F + B)");
            assertEquals((long) m * (f + b), t.computeBusy(r), "busy of stage " + r);
        }
    }

    @ParameterizedTest(name = "{0} p={1} m={2}")
    @MethodSource("grid")
    void peakInFlightActivationsFollowTheSchedule(PipelineSchedule schedule, int p, int m, long f, long b) {
        var result = new ScheduleStudy(schedule, p, m, UniformCosts.of(f, b, 0, schedule, p, m), 0).run();
        for (int r = 0; r < p; r++) {
            int expected = schedule instanceof GPipeSchedule ? m : Math.min(p - r, m);
            assertEquals(expected, result.peakActivations(r), "stage " + r);
        }
    }

    @Test
    void latencyAddsExactlyAlongTheCriticalPath() {
        // p = 2, m = 2, 1F1B, F = 10, B = 20 and a send of lambda ns each way. By hand:
        // F0(r0) 0-10, act0 10-(10+l), F0(r1), B0(r1), F1(r1), B1(r1), grad1, B1(r0):
        // 10 + l + 10 + 20 + 10 + 20 + l + 20 = 90 + 2l.
        long hop = 2;
        Timeline latencyOnly = simulate(new OneFOneBSchedule(), 2, 2, 10, 20, hop, 0);
        assertEquals(90 + 2 * (2 * hop), latencyOnly.makespan());
        // 4500 bytes at 450 GB/s add 10 ns per send: lambda = 4 + 10.
        Timeline withBytes = simulate(new OneFOneBSchedule(), 2, 2, 10, 20, hop, 4500);
        assertEquals(90 + 2 * 14, withBytes.makespan());
        Timeline free = simulate(new OneFOneBSchedule(), 2, 2, 10, 20, 0, 0);
        assertEquals(90, free.makespan());
        assertTrue(withBytes.makespan() > latencyOnly.makespan());
    }

    @Test
    void gpipeLatencyOnASingleMicrobatchCrossesEveryBoundaryTwice() {
        // One microbatch through p stages: p forwards, p backwards, and 2(p-1) sends in a chain.
        int p = 4;
        long hop = 25;
        Timeline t = simulate(new GPipeSchedule(), p, 1, 100, 200, hop, 0);
        assertEquals(p * 300 + 2 * (p - 1) * (2 * hop), t.makespan());
    }

    @Test
    void everyMicrobatchsSendBetweenTwoRanksSharesOneWork() {
        int p = 4;
        int m = 8;
        TaskGraph.Builder g = TaskGraph.builder();
        int[][] ranks = new int[p][2];
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < 2; i++) {
                ranks[r][i] = g.device("gpu" + r + "." + i, r);
            }
        }
        new PipelineProgram(new OneFOneBSchedule(), p, m, UniformCosts.of(100, 200, 0, new OneFOneBSchedule(), p, m),
                1 << 20).addTo(g, ranks);
        TaskGraph graph = g.build();
        java.util.Map<org.clustersim.core.engine.Work, Integer> uses = new java.util.IdentityHashMap<>();
        int sends = 0;
        for (int t = 0; t < graph.taskCount(); t++) {
            if (graph.tag(t).traffic() == org.clustersim.core.engine.TaskTag.Traffic.PIPELINE_SEND) {
                sends++;
                uses.merge(graph.work(t), 1, Integer::sum);
            }
        }
        // each of the rank's 2 GPUs sends forward and backward across each of the p - 1 boundaries
        assertEquals(2 * (p - 1) * m * 2, sends);
        assertEquals(2 * (p - 1) * 2, uses.size(), "one work per sender, receiver and size");
        for (int n : uses.values()) {
            assertEquals(m, n, "each shared by every microbatch");
        }
    }
}
