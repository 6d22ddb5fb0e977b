package org.clustersim.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.kernel.HeapKernel;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** The kernel a run is given: DSOL unless asked otherwise, and the same timeline on either. */
class SimulationKernelTest {

    @Test
    void dsolRunsUnlessTheHeapKernelIsAskedFor() {
        assertEquals(Simulation.Kernel.DSOL, RunOptions.DEFAULT.kernel());
        assertInstanceOf(DsolKernel.class, Simulation.Kernel.DSOL.create());
        assertInstanceOf(HeapKernel.class, Simulation.Kernel.HEAP.create());
        assertEquals(Simulation.Kernel.HEAP, RunOptions.DEFAULT.withKernel(Simulation.Kernel.HEAP).kernel());
    }

    /**
     * Two servers of four GPUs; on each GPU a chain of compute tasks with durations from a few
     * values (so many end on one instant) and sends to random GPUs after random tasks sharing
     * links, a link degraded and a GPU slowed mid-run: every kind of event a run schedules.
     */
    @Test
    void bothKernelsGiveTheSameTimeline() {
        Topology topology = new SwitchedClusterSpec("t", AcceleratorSpec.H100_SXM, 2, 4, 400e9, 500, 50e9, 700, 300)
                .build();
        SplittableRandom random = new SplittableRandom(29);
        TaskGraph.Builder b = TaskGraph.builder();
        int gpus = topology.deviceCount();
        int[] compute = new int[gpus];
        int[] last = new int[gpus];
        for (int d = 0; d < gpus; d++) {
            b.device(topology.device(d).name(), d / 4);
            compute[d] = b.stream(d, "compute", StreamKind.COMPUTE);
            last[d] = -1;
        }
        for (int i = 0; i < 400; i++) {
            int d = random.nextInt(gpus);
            int[] deps = last[d] < 0 ? new int[0] : new int[] {last[d]};
            last[d] = b.compute("c" + i, "forward", compute[d], 1_000 * (1 + random.nextInt(3)), 1e9, deps);
            if (random.nextInt(3) == 0) {
                int to = (d + 1 + random.nextInt(gpus - 1)) % gpus;
                int send = b.stream(d, "send" + i, StreamKind.COMMUNICATION);
                int recv = b.stream(to, "recv" + i, StreamKind.COMMUNICATION);
                int m = b.communicate("m" + i, "pp-p2p", new int[] {send, recv},
                        Work.Communication.pointToPoint(d, to, 1_000_000L * (1 + random.nextInt(4))), last[d]);
                last[to] = last[to] < 0 ? m : b.compute("join" + i, "forward", compute[to], 1_000, 1e9, last[to], m);
            }
        }
        TaskGraph graph = b.build();
        RunOptions options = RunOptions.DEFAULT
                .withLinkEvents(List.of(new Simulation.LinkEvent(topology.links().get(0).id(), 20_000, 0.25, 100)))
                .withDeviceEvents(List.of(new Simulation.DeviceEvent(3, 30_000, 0.5)));
        Simulation.Result dsol = Simulation.run(graph, topology, options);
        Simulation.Result heap = Simulation.run(graph, topology, options.withKernel(Simulation.Kernel.HEAP));
        Timeline a = dsol.timeline();
        Timeline h = heap.timeline();
        for (int t = 0; t < graph.taskCount(); t++) {
            assertEquals(a.start(t), h.start(t), graph.name(t));
            assertEquals(a.end(t), h.end(t), graph.name(t));
        }
        assertTrue(a.makespan() > 30_000, "the fault and the slowdown fall inside the run: " + a.makespan());
        assertEquals(a.events(), h.events());
        assertEquals(dsol.rerates(), heap.rerates());
        assertEquals(dsol.flowsRerated(), heap.flowsRerated());
    }
}
