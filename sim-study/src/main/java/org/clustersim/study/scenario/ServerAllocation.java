package org.clustersim.study.scenario;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.input.InputException;
import org.clustersim.core.input.Section;
import org.clustersim.topology.ClusterSpec;

/**
 * Gives each job of a shared cluster its servers: explicit placements first (checked against the
 * cluster's size, each other and the job's layout), then the policies in file order on the
 * servers left free ({@link Placement#pick}).
 */
final class ServerAllocation {
    /**
     * A job to place.
     *
     * @param section where its errors go (its {@code placement}), or null to throw them
     */
    record Request(String name, Scenario scenario, Placement placement, Section section) {
    }

    private ServerAllocation() {
    }

    /**
     * The jobs placed, in the order given. An error is reported at the request's section (the
     * result is then incomplete) or, without one, thrown as an {@link InputException}.
     */
    static List<SharedScenario.Job> place(ClusterSpec cluster, List<Request> requests) {
        int nodes = cluster.nodes();
        int[] owner = new int[nodes];
        java.util.Arrays.fill(owner, -1);
        SharedScenario.Job[] placed = new SharedScenario.Job[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            if (!(r.placement() instanceof Placement.Servers given)) {
                continue;
            }
            int need = r.scenario().cluster().nodes();
            int[] servers = given.servers().clone();
            java.util.Arrays.sort(servers);
            String problem = null;
            if (servers.length != need) {
                problem = "found " + servers.length + " servers (" + servers.length * cluster.gpusPerNode() + " GPUs), but "
                        + "the job's layout tp x cp x pp x dp uses " + r.scenario().parallelism().gpus() + " GPUs: "
                        + "expected " + need + " servers";
            }
            for (int k = 0; problem == null && k < servers.length; k++) {
                int n = servers[k];
                if (n >= nodes) {
                    problem = "found server " + n + ", but the cluster has servers 0 to " + (nodes - 1);
                } else if (k > 0 && servers[k - 1] == n) {
                    problem = "found server " + n + " twice";
                } else if (owner[n] >= 0) {
                    problem = "found server " + n + ", which " + requests.get(owner[n]).name() + " (jobs[" + owner[n]
                            + "]) already takes; placements may not overlap";
                }
            }
            if (problem != null) {
                fail(r, problem);
                continue;
            }
            for (int n : servers) {
                owner[n] = i;
            }
            placed[i] = new SharedScenario.Job(r.name(), r.scenario(), r.placement(), servers);
        }
        int[] unit = Placement.units(cluster);
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            if (!(r.placement() instanceof Placement.Policy policy)) {
                continue;
            }
            boolean[] free = new boolean[nodes];
            int freeCount = 0;
            for (int n = 0; n < nodes; n++) {
                free[n] = owner[n] < 0;
                freeCount += free[n] ? 1 : 0;
            }
            int need = r.scenario().cluster().nodes();
            int[] servers = Placement.pick(policy, need, free, unit);
            if (servers == null) {
                fail(r, "the job needs " + need + " servers (" + r.scenario().parallelism().gpus() + " GPUs), but only "
                        + freeCount + " of the cluster's " + nodes + " are free after the jobs placed before it");
                continue;
            }
            for (int n : servers) {
                owner[n] = i;
            }
            placed[i] = new SharedScenario.Job(r.name(), r.scenario(), r.placement(), servers);
        }
        List<SharedScenario.Job> out = new ArrayList<>();
        for (SharedScenario.Job j : placed) {
            if (j != null) {
                out.add(j);
            }
        }
        return out;
    }

    private static void fail(Request r, String problem) {
        if (r.section() == null) {
            throw new InputException(r.name() + ": " + problem);
        }
        r.section().error("placement", problem);
    }

    /**
     * {@code shared} with every job that a policy places placed by {@code policy} instead (explicit
     * placements kept): what {@code place} compares.
     *
     * @throws InputException when the jobs do not fit that way
     */
    static SharedScenario replaced(SharedScenario shared, Placement.Policy policy) {
        List<Request> requests = new ArrayList<>();
        for (SharedScenario.Job j : shared.jobs()) {
            requests.add(new Request(j.name(), j.scenario(), j.placement() instanceof Placement.Servers ? j.placement()
                    : policy, null));
        }
        return shared.withJobs(place(shared.cluster(), requests));
    }
}
