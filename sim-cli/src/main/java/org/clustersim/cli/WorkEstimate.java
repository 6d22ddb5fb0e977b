package org.clustersim.cli;

import java.util.Locale;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.input.InputException;
import org.clustersim.core.input.InputFile;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;

/**
 * How much work a command is about to do, estimated before any of it is built: simulated tasks,
 * events, heap and output size. Commands refuse, with the estimate and what to change, work that
 * cannot fit in the JVM's heap or would not finish in any useful time, instead of dying of
 * {@link OutOfMemoryError} after a minute or never returning.
 *
 * <p>The per-task figures are upper envelopes measured on the bundled scenarios (see
 * docs/reliability.md): dense layers make about 2 to 3.2 tasks per GPU, microbatch and layer,
 * MoE layers up to 17; a built task and its share of the timeline take a few hundred bytes.
 *
 * @param what        what is estimated, for messages
 * @param tasks       simulated tasks (graph nodes), or iterations for a long-run study
 * @param events      simulation events (task starts and ends, flows, failures)
 * @param heapBytes   heap the work needs at its peak
 * @param outputBytes bytes of output (trace, text) it would write
 * @param outputLimited whether the output counts against {@link #MAX_TEXT_BYTES} (printed text, not a file)
 * @param advice      what to change when it does not fit
 */
public record WorkEstimate(String what, long tasks, long events, long heapBytes, long outputBytes,
                           boolean outputLimited, String advice) {
    /** Tasks per simulated GPU, microbatch and layer of a dense model (measured at most 3.2). */
    static final double DENSE_TASKS_PER_LAYER = 4;
    /** The same for a mixture-of-experts model (measured at most 17). */
    static final double MOE_TASKS_PER_LAYER = 24;
    /**
     * Heap per task, built graph and timeline together, from the 16,384-GPU step with every
     * replica simulated (3.6 M tasks, topology included). It was set at twice the live set then
     * measured (911 MB after a full collection). Since the engine runs a depth-numbered copy of
     * the graph, the live set mid-run is 1.14 GB (600 MB before). The smallest heap this admits
     * for that step (-Xmx2800m: the estimate within 80% of the maximum) still runs it in 31 s,
     * with three full collections, against 24 s at 4 GB.
     */
    static final long BYTES_PER_TASK = 500;
    /** Heap per GPU of the cluster's graph (switches, links, routes). */
    static final long BYTES_PER_GPU = 16_000;
    /** Chrome trace bytes per task (one complete event of about 200 bytes, plus flows). */
    static final long TRACE_BYTES_PER_TASK = 400;
    /** Events a command may process at most: about a minute of event handling. */
    static final long MAX_EVENTS = 2_000_000_000L;
    /** Text a command may print (the schedule's timeline drawing). */
    static final long MAX_TEXT_BYTES = 64L << 20;
    /** Task ids are ints. */
    static final long MAX_TASKS = Integer.MAX_VALUE / 2;

    /** One training step (or {@code simulation.steps}) of a scenario, with its trace when {@code trace}. */
    public static WorkEstimate of(Scenario s, boolean trace) {
        return of(s, step(s), trace);
    }

    /**
     * A cluster's graph alone, estimated from its size before it is built: every other estimate
     * needs the built graph, and a million GPUs' graph takes tens of seconds and gigabytes to
     * build. It counts the same heap per GPU as the whole step's estimate, so a cluster this
     * refuses would be refused once built as well, and one it admits may still be.
     *
     * @param what what the cluster is built for (a scenario's name), for messages
     */
    static WorkEstimate cluster(String what, ClusterSpec c) {
        long gpus = (long) c.nodes() * c.gpusPerNode();
        boolean tpu = c instanceof TorusSpec;
        return new WorkEstimate(String.format(Locale.ROOT, "%s (a cluster of %,d %s on %,d %s)", what, gpus,
                tpu ? "chips" : "GPUs", c.nodes(), tpu ? "hosts" : "servers"), 0, 0, clamp(gpus * (double) BYTES_PER_GPU), 0, false,
                "fewer servers (cluster.nodes, or a smaller preset or slice), or more heap "
                        + "(CLUSTERSIM_JAVA_OPTS=-Xmx<size>)");
    }

    /** {@code c}'s graph, built once its estimate ({@link #cluster}) fits. */
    static Topology build(String what, ClusterSpec c) {
        cluster(what, c).requireFits();
        return c.build();
    }

    /** {@code s}'s training step, built once its cluster's estimate ({@link #cluster}) fits. */
    static TrainingStep step(Scenario s) {
        requireClusterFits(s);
        return s.trainingStep();
    }

    /** Refuses (exit 2) a scenario whose cluster's graph alone would not fit ({@link #cluster}). */
    static void requireClusterFits(Scenario s) {
        cluster(s.name(), s.cluster()).requireFits();
    }

    /** The same, for the scenario's step already made (building it twice costs seconds on large clusters). */
    public static WorkEstimate of(Scenario s, TrainingStep step, boolean trace) {
        WorkEstimate rough = envelope(s, step, trace);
        if (rough.fits() || step.replicas() <= 1) {
            return rough;
        }
        WorkEstimate counted = counted(s, step, trace);
        return counted == null ? rough : counted;
    }

    /**
     * Every replica makes the same tasks: one replica's are counted exactly (a small graph) and
     * scaled, rather than refusing a step that the per-layer envelope overstates; null when even
     * one replica is too large to build for counting.
     */
    static WorkEstimate counted(Scenario s, TrainingStep step, boolean trace) {
        TrainingStep one = step.withReplicas(1);
        if (!envelope(s, one, trace).fits()) {
            return null;
        }
        // counted only: its tasks need no names
        TaskGraph graph = one.build(s.stepSequence(), false).graph();
        boolean[] simulated = new boolean[graph.devices().size()];
        for (int d = 0; d < simulated.length; d++) {
            simulated[d] = one.simulated(d);
        }
        // a task on replica 0's GPUs alone is repeated by every replica; one that other replicas'
        // GPUs join (a data-parallel collective, an expert all-to-all) exists once either way
        long local = 0;
        for (int id = 0; id < graph.taskCount(); id++) {
            boolean own = true;
            for (int i = 0, n = graph.streamCount(id); i < n && own; i++) {
                own = simulated[graph.streamDevice(graph.taskStream(id, i))];
            }
            if (own) {
                local++;
            }
        }
        double tasks = (double) local * step.replicas() + (graph.taskCount() - local);
        return ofTasks(s.name(), s.cluster().gpus(), tasks, trace);
    }

    /** The per-layer envelope of {@code step}'s simulated GPUs. */
    private static WorkEstimate envelope(Scenario s, TrainingStep step, boolean trace) {
        int gpus = s.cluster().gpus();
        long simulated = 0;
        for (int d = 0; d < gpus; d++) {
            if (step.simulated(d)) {
                simulated++;
            }
        }
        return ofCounts(s.name(), gpus, simulated, s.microbatches(), s.stepSequence().steps(), s.model().layers(),
                s.parallelism().layout().mesh().pp(), s.model().experts() != null, trace);
    }

    /** The estimate from the counts that decide it (for tests and callers without a scenario). */
    static WorkEstimate ofCounts(String name, long gpus, long simulatedGpus, long microbatches, long steps,
                                 long layers, long pp, boolean moe, boolean trace) {
        double layersPerStage = Math.ceil(layers / (double) Math.max(1, pp));
        double perLayer = moe ? MOE_TASKS_PER_LAYER : DENSE_TASKS_PER_LAYER;
        double tasks = (double) simulatedGpus * microbatches * steps * (layersPerStage * perLayer + 4)
                + simulatedGpus * 64.0;
        return ofTasks(name, gpus, tasks, trace);
    }

    /** The estimate of {@code tasks} counted (or bounded) tasks on a cluster of {@code gpus}. */
    static WorkEstimate ofTasks(String name, long gpus, double tasks, boolean trace) {
        double heap = tasks * BYTES_PER_TASK + gpus * (double) BYTES_PER_GPU;
        return new WorkEstimate(name, clamp(tasks), clamp(3 * tasks), clamp(heap),
                trace ? clamp(tasks * TRACE_BYTES_PER_TASK) : 0, false,
                "fewer microbatches (training.globalBatch), one data-parallel replica (simulation.replicas: one), "
                        + "fewer steps, or more heap (CLUSTERSIM_JAVA_OPTS=-Xmx<size>)");
    }

    /** {@code concurrent} copies of one run at once (whatif's threads), {@code runs} in all. */
    WorkEstimate times(long concurrent, long runs) {
        return new WorkEstimate(what, clamp((double) tasks * runs), clamp((double) events * runs),
                clamp((double) heapBytes * concurrent), clamp((double) outputBytes * runs), false,
                advice + "; fewer threads (--threads) or variants (--sample)");
    }

    /** A bare pipeline schedule: {@code chunks} per rank, drawn {@code widthChars} characters wide. */
    static WorkEstimate schedule(String what, long p, long m, long chunks, long runs, double widthChars) {
        double tasks = (double) p * m * chunks * 3 * 2 * runs;
        double text = p * (widthChars + 100);
        return new WorkEstimate(what, clamp(tasks), clamp(3 * tasks), clamp(tasks * 600 + 2 * text), clamp(text), true,
                "fewer ranks (-p) or microbatches (-m), or a coarser --unit");
    }

    /** A long-run failure study: {@code events} steps of the failure and checkpoint process in all. */
    static WorkEstimate longRun(String what, double events) {
        return new WorkEstimate(what, 0, clamp(events), 64L << 20, 0, false,
                "fewer --days or --replications, larger MTBFs, or a longer --checkpoint-every");
    }

    /** Whether this work fits the heap the JVM may use (keeping a fifth free) and the event and text limits. */
    public boolean fits() {
        return reason() == null;
    }

    private String reason() {
        long max = Runtime.getRuntime().maxMemory();
        if (tasks > MAX_TASKS) {
            return "more tasks than one simulation can hold (" + count(MAX_TASKS) + ")";
        }
        if (events > MAX_EVENTS) {
            return "more events than the limit of " + count(MAX_EVENTS) + " (it would not finish in useful time)";
        }
        if (heapBytes > max / 5 * 4) {
            return "more heap than the JVM may use (" + InputFile.size(max) + ")";
        }
        if (outputLimited && outputBytes > MAX_TEXT_BYTES) {
            return "more output than " + InputFile.size(MAX_TEXT_BYTES);
        }
        return null;
    }

    /**
     * @throws InputException (exit 2) with the estimate and the advice when the work does not fit
     */
    public WorkEstimate requireFits() {
        String why = reason();
        if (why != null) {
            throw new InputException(what + " needs " + why + ": " + describe() + "; nothing was simulated. Try "
                    + advice);
        }
        return this;
    }

    /** The estimate in words. */
    public String describe() {
        StringBuilder sb = new StringBuilder("estimated ");
        if (tasks > 0) {
            sb.append(count(tasks)).append(" tasks, ");
        }
        if (events > 0) {
            sb.append(count(events)).append(" events, ");
        }
        sb.append(InputFile.size(heapBytes)).append(" of heap");
        if (outputBytes > 0) {
            sb.append(", ").append(InputFile.size(outputBytes)).append(" of output");
        }
        return sb.toString();
    }

    private static long clamp(double v) {
        return v >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, (long) Math.ceil(v));
    }

    /** 1234 as 1.2K, 3e9 as 3.0G. */
    static String count(long n) {
        if (n >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.1fG", n / 1e9);
        }
        if (n >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.1fM", n / 1e6);
        }
        if (n >= 10_000L) {
            return String.format(Locale.ROOT, "%.1fK", n / 1e3);
        }
        return Long.toString(n);
    }
}
