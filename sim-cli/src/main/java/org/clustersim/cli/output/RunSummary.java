package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.Link;

/**
 * The figures of one simulated step as the CLI prints them and writes them as JSON and CSV: the
 * {@link StepFigures} of the run (where every figure is defined and measured, last step's window
 * with several steps) in the shape of the summary file, plus what describes the layout (parallel
 * groups, weight copies) and every link that carried traffic by name. Every step's span is listed
 * in {@code steps}, which is absent for a single step.
 *
 * @param scenario           scenario name
 * @param stepTimeSeconds    makespan of the step
 * @param stepTimeNs         makespan in nanoseconds
 * @param steps              with several steps simulated, each step's span; null (left out) for one
 * @param gpus               GPUs in the layout
 * @param tokensPerStep      globalBatch x seqLen
 * @param tokensPerSecond    tokens per step over step time
 * @param modelFlopsPerStep  model FLOPs of one step (defined in {@link StepFigures})
 * @param flopsExecuted      FLOPs of all compute tasks that ran
 * @param tflopsPerGpu       model FLOPs / step time / GPUs, TFLOP/s
 * @param mfu                model FLOPs utilisation against the bf16 peak
 * @param mfuFp8Peak         the same against the FP8 peak when training in FP8 (MXFP8 included), else 0
 * @param mfuFp4Peak         the same against the FP4 peak when training in NVFP4, else 0
 * @param hfu                hardware FLOPs utilisation
 * @param idleFraction       mean over GPUs of compute idle time / step time: the sum of the next three
 *                           (docs/metrics.md, "Idle time")
 * @param pipelineBubbleFraction mean over GPUs of idle time waiting on another pipeline stage / step time
 * @param exposedCommFraction mean over GPUs of idle time waiting on communication / step time
 * @param otherWaitFraction  mean over GPUs of the rest of the idle time / step time
 * @param interferenceFraction mean over GPUs of compute time lost to communication kernels beside it / step time
 * @param peakMemoryBytes    largest peak memory over GPUs (model states plus live activations)
 * @param events             kernel events executed
 * @param tasks              tasks in the graph
 * @param weightCopiesPerRank model-copy shares of weights each pipeline rank holds (2 for DualPipe)
 * @param groups             each parallel group kind: an example group and what it crosses
 * @param allToAll           with expert parallelism, the groups the MoE all-to-alls run over (left out of
 *                           the JSON without)
 * @param devices            per-GPU figures of the simulated replicas
 * @param links              every link that carried traffic, busiest first
 * @param faults             the scenario's link, switch and NIC faults as the run applied them, in
 *                           scenario order (empty without)
 * @param stragglers         the scenario's slowed GPUs (its {@code gpu} faults), in scenario order
 *                           (empty without)
 */
public record RunSummary(String scenario, double stepTimeSeconds, long stepTimeNs,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<StepSpan> steps, int gpus, long tokensPerStep,
                         double tokensPerSecond, double modelFlopsPerStep, double flopsExecuted, double tflopsPerGpu,
                         double mfu, double mfuFp8Peak, double mfuFp4Peak, double hfu, double idleFraction,
                         double pipelineBubbleFraction, double exposedCommFraction, double otherWaitFraction,
                         double interferenceFraction, long peakMemoryBytes, long events,
                         int tasks, double weightCopiesPerRank, List<ParallelGroups.Group> groups,
                         @JsonInclude(JsonInclude.Include.NON_NULL) AllToAllGroups allToAll,
                         List<Device> devices, List<LinkTraffic> links, List<AppliedFault> faults,
                         List<Straggler> stragglers) {

    /**
     * A link, switch or NIC fault as the run applied it, so a summary says what it simulated.
     *
     * @param target          link, switch or nic
     * @param name            the link, cable, switch or NIC as the scenario names it
     * @param links           directed links it touched (a cable: 2; a switch: all of its ports)
     * @param capacityFraction the capacity those links kept (0: down)
     * @param extraLatencyNs  latency added to each of them
     * @param atNs            when it started
     * @param durationNs      how long it lasted, 0 for the rest of the run
     * @param applied         whether it started before the run ended (false: it changed nothing)
     * @param description     the same in words, e.g. {@code link a->b down from 1.000 ms}
     * @param source          where the scenario states it ({@code faults[0], line 12})
     */
    public record AppliedFault(String target, String name, int links, double capacityFraction, long extraLatencyNs,
                               long atNs, long durationNs, boolean applied, String description, String source) {
    }

    /**
     * A GPU (or chip) slowed by a scenario's {@code gpu} fault.
     *
     * @param device      device index
     * @param name        device name
     * @param speed       relative compute speed (0.8)
     * @param slowdown    how much longer each of its kernels takes (1 / speed: 1.25)
     * @param atNs        when it started
     * @param durationNs  how long it lasted, 0 for the rest of the run
     * @param applied     whether it started before the run ended (false: it changed nothing)
     * @param source      where the scenario states it ({@code faults[1], line 15})
     */
    public record Straggler(int device, String name, double speed, double slowdown, long atNs, long durationNs,
                            boolean applied, String source) {
    }

    /**
     * One simulated step.
     *
     * @param step       its index, from 0
     * @param startNs    its start: the end of the step before, 0 for the first
     * @param endNs      the end of its last task
     * @param durationNs end minus start: its step time
     */
    public record StepSpan(int step, long startNs, long endNs, long durationNs) {
    }

    /**
     * One GPU's figures.
     *
     * @param device          device index
     * @param name            device name
     * @param tpRank          tensor-parallel rank
     * @param cpRank          context-parallel rank
     * @param pipelineRank    pipeline rank
     * @param dpRank          data-parallel rank
     * @param computeBusyNs   compute stream busy time
     * @param computeIdleNs   compute stream idle time within the step window: the sum of the next three
     * @param pipelineBubbleNs idle time waiting on another pipeline stage's computation
     * @param exposedCommNs   idle time waiting on communication
     * @param otherWaitNs     the rest of the idle time
     * @param exposedByKind   exposed communication per traffic kind (tp-comm, pp-p2p, dp-comm): adds up to
     *                        {@code exposedCommNs}
     * @param overlappedByKind per traffic kind, communication time while compute was busy
     * @param interferenceNs  compute time lost to communication kernels running beside it (how much
     *                        longer the GPU's kernels took than alone)
     * @param peakActivations most microbatch activations alive at once, in microbatches of the rank's share
     * @param memory          peak memory and its parts
     */
    public record Device(int device, String name, int tpRank, int cpRank, int pipelineRank, int dpRank, long computeBusyNs,
                         long computeIdleNs, long pipelineBubbleNs, long exposedCommNs, long otherWaitNs,
                         Map<String, Long> exposedByKind,
                         Map<String, Long> overlappedByKind, long interferenceNs, double peakActivations,
                         Memory memory) {
    }

    /**
     * A GPU's memory at its peak.
     *
     * @param peakBytes        weights + gradients + optimizer state + activations at the peak
     * @param weightBytes      bf16 weights
     * @param gradientBytes    gradients
     * @param optimizerBytes   Adam state
     * @param workspaceBytes   framework reserve and transient buffers (the last stage's logits)
     * @param activationBytes  activations live at the peak
     */
    public record Memory(long peakBytes, long weightBytes, long gradientBytes, long optimizerBytes,
                         long workspaceBytes, long activationBytes) {
    }

    /**
     * What one link carried.
     *
     * @param link         link name
     * @param kind         link class ({@code nvlink}, {@code nic-switch}, {@code leaf-spine}, ...: the names
     *                     {@code topology --links} prints)
     * @param bytes        bytes carried
     * @param busyNs       time it carried at least one flow
     * @param busyFraction busy time over the step time
     */
    public record LinkTraffic(String link, String kind, long bytes, long busyNs, double busyFraction) {
    }

    /** Measures a finished run of {@code scenario} (only the simulated replicas' GPUs are listed). */
    public static RunSummary of(Scenario scenario, SimulatedStep run) {
        StepFigures f = run.figures();
        TrainingStep step = run.step();
        List<StepSpan> steps = null;
        if (f.steps().size() > 1) {
            steps = new ArrayList<>();
            for (StepFigures.StepSpan st : f.steps()) {
                steps.add(new StepSpan(st.step(), st.startNs(), st.endNs(), st.durationNs()));
            }
        }
        List<Device> devices = new ArrayList<>();
        for (StepFigures.Device d : f.devices()) {
            StepFigures.Memory m = d.memory();
            devices.add(new Device(d.device(), d.name(), d.tpRank(), d.cpRank(), d.pipelineRank(), d.dpRank(),
                    d.computeBusyNs(), d.computeIdleNs(), d.pipelineBubbleNs(), d.exposedCommNs(), d.otherWaitNs(),
                    d.exposedByKind(),
                    d.overlappedByKind(), d.interferenceNs(), d.peakActivations(), new Memory(m.peakBytes(),
                    m.weightBytes(), m.gradientBytes(), m.optimizerBytes(), m.workspaceBytes(), m.activationBytes())));
        }
        List<LinkTraffic> links = new ArrayList<>();
        for (Link l : run.result().links().topology().links()) {
            long bytes = f.linkBytes()[l.id()];
            long busy = f.linkBusyNs()[l.id()];
            if (bytes > 0) {
                links.add(new LinkTraffic(l.name(), org.clustersim.study.whatif.Cable.classOf(l), bytes, busy,
                        f.makespanNs() == 0 ? 0 : (double) busy / f.makespanNs()));
            }
        }
        links.sort((a, b) -> a.busyNs() != b.busyNs() ? Long.compare(b.busyNs(), a.busyNs())
                : a.link().compareTo(b.link()));
        return new RunSummary(scenario.name(), f.stepTimeNs() / 1e9, f.stepTimeNs(), steps, f.gpus(),
                f.tokensPerStep(), f.tokensPerSecond(), f.modelFlopsPerStep(), f.flopsExecuted(), f.tflopsPerGpu(),
                f.mfu(), f.mfuFp8Peak(), f.mfuFp4Peak(), f.hfu(), f.idleFraction(), f.pipelineBubbleFraction(),
                f.exposedCommFraction(), f.otherWaitFraction(),
                f.interferenceFraction(), f.peakMemoryBytes(), f.events(), f.tasks(),
                step.schedule().weightCopies(step.pp(), step.microbatches()), ParallelGroups.of(step),
                AllToAllGroups.of(step), devices, links, faults(scenario, step, f.makespanNs()),
                stragglers(scenario, step, f.makespanNs()));
    }

    /** The scenario's link, switch and NIC faults on the step's topology; {@code endNs}: the run's end. */
    private static List<AppliedFault> faults(Scenario scenario, TrainingStep step, long endNs) {
        List<AppliedFault> out = new ArrayList<>();
        for (Fault f : scenario.faults()) {
            if (f.target() != Fault.Target.GPU) {
                out.add(new AppliedFault(f.target().id(), f.name(), FaultEvents.links(step.topology(), f).size(),
                        f.capacityFactor(), f.extraLatencyNs(), f.atNs(), f.durationNs(), f.atNs() < endNs,
                        f.describe(), source(f)));
            }
        }
        return out;
    }

    /** The scenario's slowed GPUs. */
    private static List<Straggler> stragglers(Scenario scenario, TrainingStep step, long endNs) {
        List<Straggler> out = new ArrayList<>();
        for (Fault f : scenario.faults()) {
            if (f.target() == Fault.Target.GPU) {
                out.add(new Straggler(FaultEvents.deviceIndex(step.topology(), f.name()), f.name(), f.speed(),
                        1 / f.speed(), f.atNs(), f.durationNs(), f.atNs() < endNs, source(f)));
            }
        }
        return out;
    }

    private static String source(Fault f) {
        return f.path() + (f.location().line() > 0 ? ", line " + f.location().line() : "");
    }
}
