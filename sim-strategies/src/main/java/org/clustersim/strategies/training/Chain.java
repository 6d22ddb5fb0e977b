package org.clustersim.strategies.training;

import java.util.function.IntConsumer;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.LayerCostModel;

/**
 * The tasks of one action of a pipeline rank, in program order on the rank's tp x cp GPUs (cp
 * groups of tp, CP rank-major): compute tasks that occupy the compute streams of all of them
 * together (they run in lockstep), and the communications between, each task waiting for the one
 * before. The parts of a step (tensor, context, expert parallelism) add their collectives to it.
 * Every task is tagged with what the chain is emitting at the time ({@link #at}): its pass,
 * microbatch, chunk and layer, and for communication the traffic kind the part names.
 */
final class Chain {
    private final TaskGraph.Builder graph;
    private final LayerBlocks blocks;
    private final int[] devices;
    private final int[] compute;
    private int first = -1;
    private int last = -1;
    private IntConsumer nextTask;
    /** A communication launched beside the chain that its next task waits for, -1 when none. */
    private int awaited = -1;
    private TaskTag tag;
    /** The communication streams asked for by name (a few per rank, asked for by every collective). */
    private final java.util.Map<String, int[]> streamsByName = new java.util.HashMap<>(4);

    /** @param tag what the chain emits first (pass, microbatch, chunk) */
    Chain(TaskGraph.Builder graph, LayerBlocks blocks, int[] devices, TaskTag tag) {
        this.graph = graph;
        this.tag = tag;
        this.blocks = blocks;
        this.devices = devices;
        this.compute = new int[devices.length];
        for (int i = 0; i < devices.length; i++) {
            compute[i] = graph.stream(devices[i], "compute", StreamKind.COMPUTE);
        }
    }

    TaskGraph.Builder graph() {
        return graph;
    }

    int[] devices() {
        return devices;
    }

    /** Tags the tasks added from now on with {@code tag} (a layer, a recomputation). */
    void at(TaskTag tag) {
        this.tag = tag;
    }

    /** The tag of the tasks added now. */
    TaskTag tag() {
        return tag;
    }

    /** The chain's first task (what the action's inputs wait for), -1 while it is empty. */
    int first() {
        return first;
    }

    /** The chain's last task so far, -1 while it is empty. */
    int last() {
        return last;
    }

    /** A compute task of {@code flops} per GPU. */
    int compute(String name, double ns, double flops) {
        return computeAfter(name, ns, flops, -1);
    }

    /** A compute task of {@code flops} per GPU tagged {@code tag} rather than the chain's (a shard copy). */
    int compute(String name, TaskTag tag, double ns, double flops) {
        int id = graph.computeOn(name, tag, compute, Math.round(ns), flops * devices.length);
        link(id);
        return id;
    }

    /** A compute task that also waits for task {@code after} (-1: for nothing else). */
    int computeAfter(String name, double ns, double flops, int after) {
        int id = graph.computeOn(name, tag, compute, Math.round(ns), flops * devices.length);
        if (after >= 0) {
            graph.addDependency(id, after);
        }
        link(id);
        return id;
    }

    /** A block's pass, with its split over ops for the trace. */
    int compute(String name, LayerCostModel.Block b, Pass p) {
        int id = graph.computeOn(name, tag, compute, Math.round(p.ns(b)), p.flops(b) * devices.length,
                blocks.ops(b, p));
        link(id);
        return id;
    }

    /** A block's pass that also waits for task {@code after} (-1: for nothing else). */
    int computeAfter(String name, LayerCostModel.Block b, Pass p, int after) {
        int id = graph.computeOn(name, tag, compute, Math.round(p.ns(b)), p.flops(b) * devices.length,
                blocks.ops(b, p));
        if (after >= 0) {
            graph.addDependency(id, after);
        }
        link(id);
        return id;
    }

    /** A communication of {@code traffic} on stream {@code stream} of every GPU of the rank. */
    void communicate(String name, TaskTag.Traffic traffic, String stream, Work.Communication work) {
        link(graph.communicate(name, tag.carrying(traffic), streams(stream), work));
    }

    /**
     * A communication beside the chain, as XLA's asynchronous collectives run: it waits for task
     * {@code after} only (not for the chain's last task), and the chain goes on without it.
     *
     * @return its task id
     */
    int launch(String name, TaskTag.Traffic traffic, String stream, Work.Communication work, int after) {
        int id = graph.communicate(name, tag.carrying(traffic), streams(stream), work);
        if (after >= 0) {
            graph.addDependency(id, after);
        }
        return id;
    }

    /** Makes the chain's next task wait for task {@code id} too (a communication launched beside it). */
    void await(int id) {
        awaited = id;
    }

    /** The task launched beside the chain that its next task waits for, -1 when none. */
    int awaited() {
        return awaited;
    }

    /** The communication stream {@code name} of every GPU of the rank (shared: not to be written). */
    int[] streams(String name) {
        int[] known = streamsByName.get(name);
        if (known != null) {
            return known;
        }
        int[] streams = new int[devices.length];
        for (int i = 0; i < devices.length; i++) {
            streams[i] = graph.stream(devices[i], name, StreamKind.COMMUNICATION);
        }
        streamsByName.put(name, streams);
        return streams;
    }

    /** Tells {@code hook} the id of the next task the chain adds (after any hook set before). */
    void onNextTask(IntConsumer hook) {
        nextTask = nextTask == null ? hook : nextTask.andThen(hook);
    }

    /** Appends task {@code id}: it waits for the chain's last task. */
    void link(int id) {
        if (nextTask != null) {
            nextTask.accept(id);
            nextTask = null;
        }
        if (awaited >= 0) {
            graph.addDependency(id, awaited);
            awaited = -1;
        }
        if (last >= 0) {
            graph.addDependency(id, last);
        } else {
            first = id;
        }
        last = id;
    }
}
