package org.clustersim.study.scenario;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.input.InputException;
import org.clustersim.core.input.Section;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.TorusSpec;

/**
 * Gives each job of a shared cluster its servers: explicit placements first (checked against the
 * cluster's size, each other and the job's layout), then the policies in file order on the
 * servers left free ({@link Placement#pick}). On a cluster of TPU slices a job takes whole slices:
 * its explicit servers must be whole slices' hosts, and the policies pick whole free slices.
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
            if (problem == null && perSlice(cluster) > 0) {
                problem = wholeSlices(servers, perSlice(cluster));
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
            int[] servers = perSlice(cluster) > 0 ? slicesPicked(policy, need, free, perSlice(cluster))
                    : Placement.pick(policy, need, free, unit);
            if (servers == null && perSlice(cluster) > 0) {
                int h = perSlice(cluster);
                int freeSlices = 0;
                for (int s = 0; s < nodes / h; s++) {
                    freeSlices += wholeSliceFree(free, s, h) ? 1 : 0;
                }
                fail(r, "the job takes " + need / h + " slice(s), but only " + freeSlices + " of the cluster's "
                        + nodes / h + " slices are free after the jobs placed before it");
                continue;
            }
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

    /** Hosts per slice of a TPU cluster, whose jobs take whole slices; 0 for GPU servers. */
    private static int perSlice(ClusterSpec cluster) {
        return cluster instanceof TorusSpec t ? t.chipsPerSlice() / t.chipsPerHost() : 0;
    }

    /** Null when {@code servers} (ascending, distinct) are whole slices of {@code h} hosts; else the problem. */
    private static String wholeSlices(int[] servers, int h) {
        for (int k = 0; k < servers.length; k += h) {
            int slice = servers[k] / h;
            if (servers[k] % h != 0 || servers[k + h - 1] != servers[k] + h - 1) {
                return "found servers " + Placement.ranges(servers) + ", but a job on TPU slices takes whole slices of "
                        + h + " hosts each (slice " + slice + " is servers " + slice * h + "-" + (slice * h + h - 1) + ")";
            }
        }
        return null;
    }

    private static boolean wholeSliceFree(boolean[] free, int slice, int h) {
        for (int n = slice * h; n < slice * h + h; n++) {
            if (!free[n]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code need} hosts as whole free slices of {@code h} hosts, the slices picked by {@code policy}
     * as if each were a server under one switch (the DCN joins every slice alike, so packed, spread
     * and first-fit take the lowest free slices, random a seeded draw of them); null when too few
     * slices are free.
     */
    private static int[] slicesPicked(Placement.Policy policy, int need, boolean[] free, int h) {
        boolean[] freeSlice = new boolean[free.length / h];
        for (int s = 0; s < freeSlice.length; s++) {
            freeSlice[s] = wholeSliceFree(free, s, h);
        }
        int[] slices = Placement.pick(policy, need / h, freeSlice, new int[freeSlice.length]);
        if (slices == null) {
            return null;
        }
        int[] out = new int[need];
        for (int i = 0; i < slices.length; i++) {
            for (int k = 0; k < h; k++) {
                out[i * h + k] = slices[i] * h + k;
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
