package org.clustersim.study.shared;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.input.InputException;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.topology.Topology;

/**
 * A shared cluster as its file describes it (its own faults included) against the same cluster
 * with extra faults: link, cable, switch or NIC faults and stragglers. Both are simulated with
 * every job together (and each alone on its servers, {@link SharedRun}), so a failed spine link
 * shows which jobs it hurts: each job's step time before and after, and the cluster's aggregate
 * throughput.
 *
 * @param faults   the extra faults of the variant
 * @param baseline the file as it is
 * @param variant  the file with {@code faults} added
 */
public record SharedWhatIf(List<Fault> faults, SharedRun baseline, SharedRun variant) {

    public SharedWhatIf {
        faults = List.copyOf(faults);
    }

    /**
     * One job before and after.
     *
     * @param job    the job's name
     * @param before its step time in the baseline, together with the other jobs
     * @param after  its step time in the variant, together with the other jobs
     * @param run    its outcome in the variant (figures, step alone)
     */
    public record JobChange(String job, long before, long after, SharedRun.JobRun run) {
        /** After minus before, in ns. */
        public long deltaNs() {
            return after - before;
        }

        /** Step time after over before: 1 for a job the faults do not touch. */
        public double slowdown() {
            return before == 0 ? 1 : (double) after / before;
        }
    }

    /**
     * Simulates {@code shared} with and without {@code extra} on up to {@code threads} threads.
     *
     * @throws InputException when an extra fault names nothing on the cluster (with the nearest
     *         names), or slows a GPU no simulated job runs on (it would change nothing)
     */
    public static SharedWhatIf of(SharedScenario shared, List<Fault> extra, int threads) {
        Topology topology = shared.topology();
        // unknown names fail before any simulation, located at their flag
        FaultEvents.resolve(extra, topology, shared.source());
        SharedRun base = SharedRun.of(shared, false, threads);
        int gpn = shared.cluster().gpusPerNode();
        for (Fault f : extra) {
            if (f.target() == Fault.Target.GPU) {
                requireSimulated(f, FaultEvents.deviceIndex(topology, f.name()), base, gpn);
            }
        }
        SharedRun variant = SharedRun.of(shared.withExtraFaults(extra), false, threads);
        return new SharedWhatIf(extra, base, variant);
    }

    private static void requireSimulated(Fault f, int device, SharedRun base, int gpn) {
        for (SharedRun.JobRun j : base.jobs()) {
            int[] map = j.job().deviceMap(gpn);
            for (int local = 0; local < map.length; local++) {
                if (map[local] != device) {
                    continue;
                }
                if (!j.step().simulated(local)) {
                    throw new InputException(f.path() + ": " + f.name() + " is in data-parallel replica "
                            + j.step().coordinates(local).dp() + " of job " + j.job().name() + ", and only replica 0 "
                            + "is simulated task by task (simulation.replicas: one), so slowing it would change "
                            + "nothing; slow a GPU of replica 0 or simulate all replicas");
                }
                return;
            }
        }
        throw new InputException(f.path() + ": " + f.name() + " is on a server no job runs on, so slowing it would "
                + "change nothing; slow a GPU of a job's servers");
    }

    /** Each job before and after, in file order. */
    public List<JobChange> changes() {
        List<JobChange> out = new ArrayList<>();
        for (int i = 0; i < variant.jobs().size(); i++) {
            SharedRun.JobRun after = variant.jobs().get(i);
            out.add(new JobChange(after.job().name(), baseline.jobs().get(i).figures().stepTimeNs(),
                    after.figures().stepTimeNs(), after));
        }
        return out;
    }
}
