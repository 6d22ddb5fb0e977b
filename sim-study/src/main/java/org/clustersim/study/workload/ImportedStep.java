package org.clustersim.study.workload;

import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.study.scenario.WorkloadScenario;
import org.clustersim.topology.Topology;

/**
 * A workload scenario's imported trace simulated on its cluster: the traces read, scaled to
 * {@code workload.ranks} where given ({@link DataParallelCopies}), mapped onto a task graph and run once with the default network model. What {@code run} reports for a scenario
 * with a {@code workload} section.
 *
 * @param scenario the scenario
 * @param ranks    the rank traces read
 * @param built    the task graph and what went into it
 * @param result   the simulation's result
 */
public record ImportedStep(WorkloadScenario scenario, List<RankTrace> ranks, EtTaskGraph.Built built,
                           Simulation.Result result) {

    /** Reads, maps and simulates {@code scenario}'s trace; bad trace files are {@code InputException}s. */
    public static ImportedStep of(WorkloadScenario scenario) {
        List<Path> files = EtTraceReader.files(scenario.base(), scenario.chakraTrace(),
                scenario.file() + ": workload.chakraTrace");
        List<RankTrace> ranks = new EtTraceReader().read(files);
        if (scenario.ranks() > 0) {
            ranks = DataParallelCopies.scale(ranks, scenario.ranks(), scenario.file() + ": workload.ranks");
        }
        Topology topology = scenario.cluster().build();
        EtTaskGraph.Built built = EtTaskGraph.build(ranks, topology,
                new ComputeCost(scenario.byDuration() ? null : scenario.device(), scenario.durationScale()), scenario.collectiveAlgorithm());
        return new ImportedStep(scenario, ranks, built, Simulation.run(built.graph(), topology, RunOptions.DEFAULT));
    }

    /** The step's time: from the start to the last task's end, ns. */
    public long stepNs() {
        return result.timeline().makespan();
    }

    /**
     * One rank's time in the step, ns.
     *
     * @param rank          the rank (device index)
     * @param name          its device's name
     * @param computeBusyNs time its compute streams were busy (summed over them, as model runs count it)
     * @param computeIdleNs the step less that
     * @param commBusyNs    time at least one of its communication streams was busy
     * @param exposedCommNs time communication was busy while no compute stream was: the idle time it explains
     */
    public record RankTime(int rank, String name, long computeBusyNs, long computeIdleNs, long commBusyNs,
                           long exposedCommNs) {
    }

    /** Each rank's busy and idle time. */
    public List<RankTime> rankTimes() {
        Timeline t = result.timeline();
        TaskGraph g = built.graph();
        List<RankTime> out = new java.util.ArrayList<>(built.ranks());
        for (int r = 0; r < built.ranks(); r++) {
            List<long[]> compute = new java.util.ArrayList<>();
            List<long[]> comm = new java.util.ArrayList<>();
            for (int i = 0; i < g.deviceStreamCount(r); i++) {
                int s = g.deviceStream(r, i);
                for (int k = 0; k < g.streamLength(s); k++) {
                    int task = g.streamTask(s, k);
                    if (t.end(task) > t.start(task)) {
                        (g.isComputeStream(s) ? compute : comm).add(new long[] {t.start(task), t.end(task)});
                    }
                }
            }
            List<long[]> busyCompute = union(compute);
            List<long[]> busyComm = union(comm);
            long commNs = length(busyComm);
            out.add(new RankTime(r, g.devices().get(r).name(), t.computeBusy(r), t.computeIdle(r), commNs,
                    commNs - overlap(busyComm, busyCompute)));
        }
        return out;
    }

    /** Intervals merged into disjoint ones, in order. */
    private static List<long[]> union(List<long[]> spans) {
        spans.sort(java.util.Comparator.comparingLong((long[] a) -> a[0]));
        List<long[]> out = new java.util.ArrayList<>();
        for (long[] s : spans) {
            if (!out.isEmpty() && s[0] <= out.get(out.size() - 1)[1]) {
                long[] last = out.get(out.size() - 1);
                last[1] = Math.max(last[1], s[1]);
            } else {
                out.add(new long[] {s[0], s[1]});
            }
        }
        return out;
    }

    private static long length(List<long[]> spans) {
        long sum = 0;
        for (long[] s : spans) {
            sum += s[1] - s[0];
        }
        return sum;
    }

    /** Time two sets of disjoint ordered intervals overlap. */
    private static long overlap(List<long[]> a, List<long[]> b) {
        long sum = 0;
        int j = 0;
        for (long[] x : a) {
            while (j < b.size() && b.get(j)[1] <= x[0]) {
                j++;
            }
            for (int k = j; k < b.size() && b.get(k)[0] < x[1]; k++) {
                sum += Math.min(x[1], b.get(k)[1]) - Math.max(x[0], b.get(k)[0]);
            }
        }
        return sum;
    }

    /** Mean over the ranks of the share of the step their compute streams were busy, in [0, 1]. */
    public double computeBusyShare() {
        Timeline t = result.timeline();
        if (stepNs() == 0) {
            return 0;
        }
        double busy = 0;
        for (int r = 0; r < built.ranks(); r++) {
            busy += t.computeBusy(r);
        }
        return busy / ((double) stepNs() * built.ranks());
    }
}
