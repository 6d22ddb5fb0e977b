package org.clustersim.study.scenario;

import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.strategies.collective.FittedCommTuning;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.Topology;

/**
 * A validated shared-cluster file: one cluster and several jobs placed on its servers, simulated
 * together on one timeline and one fabric. Built only by {@link SharedScenarioReader}; the format
 * is in docs/scenario-format.md, "Shared clusters".
 *
 * @param name     the file's name (its stem unless given)
 * @param source   the file
 * @param cluster  the whole cluster
 * @param device   its GPUs' device profile
 * @param jobs     the jobs in file order, each placed
 * @param faults   link, switch, NIC and GPU faults on the shared cluster
 * @param fidelity network model
 * @param routing  how equal-cost paths are chosen
 * @param output   output paths named in the file
 * @param autoSteps whether each job's step count is raised until each job completes its own
 *                 {@code simulation.steps} steps while every job still runs ({@code simulation.steps:
 *                 auto} at the top of the file; {@link org.clustersim.study.shared.SharedRun})
 */
public record SharedScenario(String name, Path source, ClusterSpec cluster, DeviceProfile device, List<Job> jobs,
                             List<Fault> faults, Simulation.Fidelity fidelity, Simulation.Routing routing,
                             Scenario.Output output, boolean autoSteps) {

    public SharedScenario {
        jobs = List.copyOf(jobs);
        faults = List.copyOf(faults);
    }

    /**
     * One job: its scenario (its step built on a cluster of its own size with the shared
     * cluster's servers and fabric, {@link Scenario#cluster()}), how it was placed and the
     * servers of the shared cluster it runs on, ascending.
     *
     * @param name      the job's name
     * @param scenario  its scenario
     * @param placement as the file asks
     * @param servers   the servers it got
     */
    public record Job(String name, Scenario scenario, Placement placement, int[] servers) {
        public Job {
            servers = servers.clone();
        }

        /**
         * Per device of the job's own numbering, its device on the shared cluster: GPU g of the
         * job's server k is GPU g of its k-th placed server. On TPU slices (whole slices, the
         * shared cluster's chips numbered as laid out) a chip keeps its place in its slice: the
         * chip at a position of the job's slice k is the chip at that position of its k-th
         * placed slice, whatever numbering the job's mesh gave it.
         */
        public int[] deviceMap(int gpusPerNode) {
            if (scenario.cluster() instanceof org.clustersim.topology.TorusSpec t) {
                int perSlice = t.chipsPerSlice();
                int hostsPerSlice = perSlice / gpusPerNode;
                int[] map = new int[t.slices() * perSlice];
                for (int d = 0; d < map.length; d++) {
                    int p = t.physical(d);
                    map[d] = servers[p / perSlice * hostsPerSlice] / hostsPerSlice * perSlice + p % perSlice;
                }
                return map;
            }
            int[] map = new int[servers.length * gpusPerNode];
            for (int d = 0; d < map.length; d++) {
                map[d] = servers[d / gpusPerNode] * gpusPerNode + d % gpusPerNode;
            }
            return map;
        }

        /** The same job on the same servers simulating {@code steps} steps. */
        public Job withSteps(int steps) {
            return new Job(name, scenario.withSteps(steps), placement, servers);
        }

        /** The same job on other servers. */
        public Job placedOn(Placement how, int[] on) {
            return new Job(name, scenario, how, on);
        }
    }

    /** The same cluster with the jobs given (placed anew, say). */
    public SharedScenario withJobs(List<Job> placed) {
        return new SharedScenario(name, source, cluster, device, placed, faults, fidelity, routing, output, autoSteps);
    }

    /** The same cluster and jobs with {@code extra} faults after the file's own: a what-if variant. */
    public SharedScenario withExtraFaults(List<Fault> extra) {
        List<Fault> all = new java.util.ArrayList<>(faults);
        all.addAll(extra);
        return new SharedScenario(name, source, cluster, device, jobs, all, fidelity, routing, output, autoSteps);
    }

    /**
     * The same jobs with every one a policy places placed by {@code policy} instead; explicit
     * placements are kept.
     *
     * @throws org.clustersim.core.input.InputException when the jobs do not fit that way
     */
    public SharedScenario placedBy(Placement.Policy policy) {
        return ServerAllocation.replaced(this, policy);
    }

    /** The whole cluster built, its collective constants fitted to the device profile, as {@link Scenario#topology()}. */
    public Topology topology() {
        Topology built = cluster.build();
        return device == null ? built : FittedCommTuning.over(built, device.collectives());
    }

    /** The faults as simulation events on {@code topology}, the shared cluster built. */
    public FaultEvents faultEvents(Topology topology) {
        return FaultEvents.resolve(faults, topology, source);
    }
}
