package org.clustersim.study.scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.RackPodSpec;
import org.clustersim.topology.SuperPodSpec;

/**
 * Where a job of a shared cluster runs: an explicit list of servers, or a policy that picks them
 * from what earlier jobs left free. Policies see the cluster as units of servers that share their
 * first switches (a DGX SuperPOD's scalable unit of 32 servers under one set of rail leaves, an
 * NVL72 pod's unit of racks, a fat tree's leaf, one unit for a single switch): {@code packed}
 * takes as few units as it can (the fullest-fitting unit, else the freest units first),
 * {@code spread} deals servers round-robin over the units, {@code random} draws them with a seed,
 * {@code first-fit} takes the lowest-numbered free servers. A job's servers are kept in
 * ascending order: its server k (GPUs k x gpusPerNode onwards of its own numbering) runs on the
 * k-th of them.
 */
public sealed interface Placement {

    /** Servers given by number. */
    record Servers(int[] servers) implements Placement {
        public Servers {
            servers = servers.clone();
        }

        @Override
        public String describe() {
            return "servers " + ranges(servers);
        }
    }

    /** Servers chosen by a policy; {@code seed} matters for {@code random} only. */
    record Policy(Kind kind, long seed) implements Placement {
        @Override
        public String describe() {
            return kind == Kind.RANDOM ? "random (seed " + seed + ")" : kind.id();
        }
    }

    /** The policies. */
    enum Kind {
        PACKED, SPREAD, RANDOM, FIRST_FIT;

        /** The name in scenario files and on the command line. */
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** How the placement reads in outputs. */
    String describe();

    /**
     * The unit of each server of {@code cluster}: servers of one unit share their first switches.
     * Null for a cluster whose servers the policies do not know how to group (TPU slices).
     */
    static int[] units(ClusterSpec cluster) {
        int nodes = cluster.nodes();
        int perUnit;
        if (cluster instanceof SuperPodSpec s) {
            perUnit = s.nodesPerUnit();
        } else if (cluster instanceof RackPodSpec r) {
            perUnit = r.racksPerUnit();
        } else if (cluster instanceof FatTreeSpec f) {
            perUnit = Math.max(1, f.leafDown() / f.gpusPerNode());
        } else if (cluster instanceof org.clustersim.topology.SwitchedClusterSpec) {
            perUnit = nodes;
        } else {
            return null;
        }
        int[] unit = new int[nodes];
        for (int n = 0; n < nodes; n++) {
            unit[n] = n / perUnit;
        }
        return unit;
    }

    /**
     * {@code count} free servers picked by {@code policy} ({@code free} marks them), ascending, or
     * null when fewer are free. Marks nothing: the caller takes them.
     */
    static int[] pick(Policy policy, int count, boolean[] free, int[] unit) {
        List<Integer> open = new ArrayList<>();
        for (int n = 0; n < free.length; n++) {
            if (free[n]) {
                open.add(n);
            }
        }
        if (open.size() < count) {
            return null;
        }
        int units = unit.length == 0 ? 0 : unit[unit.length - 1] + 1;
        List<List<Integer>> byUnit = new ArrayList<>();
        for (int u = 0; u < units; u++) {
            byUnit.add(new ArrayList<>());
        }
        for (int n : open) {
            byUnit.get(unit[n]).add(n);
        }
        int[] out = new int[count];
        switch (policy.kind()) {
            case FIRST_FIT -> {
                for (int i = 0; i < count; i++) {
                    out[i] = open.get(i);
                }
            }
            case RANDOM -> {
                int[] shuffled = open.stream().mapToInt(Integer::intValue).toArray();
                SplittableRandom r = new SplittableRandom(policy.seed());
                for (int i = shuffled.length - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1);
                    int t = shuffled[i];
                    shuffled[i] = shuffled[j];
                    shuffled[j] = t;
                }
                System.arraycopy(shuffled, 0, out, 0, count);
            }
            case PACKED -> {
                // the unit with the fewest free servers that still holds the whole job; else the
                // freest units first (ties: lower unit first)
                int best = -1;
                for (int u = 0; u < units; u++) {
                    int has = byUnit.get(u).size();
                    if (has >= count && (best < 0 || has < byUnit.get(best).size())) {
                        best = u;
                    }
                }
                List<Integer> order = new ArrayList<>();
                if (best >= 0) {
                    order.add(best);
                } else {
                    for (int u = 0; u < units; u++) {
                        order.add(u);
                    }
                    order.sort((a, b) -> byUnit.get(b).size() != byUnit.get(a).size()
                            ? byUnit.get(b).size() - byUnit.get(a).size() : a - b);
                }
                int i = 0;
                for (int u : order) {
                    for (int n : byUnit.get(u)) {
                        if (i < count) {
                            out[i++] = n;
                        }
                    }
                }
            }
            case SPREAD -> {
                int[] next = new int[units];
                int u = 0;
                for (int i = 0; i < count; i++) {
                    while (next[u] >= byUnit.get(u).size()) {
                        u = (u + 1) % units;
                    }
                    out[i] = byUnit.get(u).get(next[u]++);
                    u = (u + 1) % units;
                }
            }
            default -> throw new IllegalStateException("unreachable");
        }
        Arrays.sort(out);
        return out;
    }

    /** Servers as ranges: {@code 0-31,64-95}. */
    static String ranges(int[] servers) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < servers.length) {
            int j = i;
            while (j + 1 < servers.length && servers[j + 1] == servers[j] + 1) {
                j++;
            }
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(servers[i]);
            if (j > i) {
                sb.append('-').append(servers[j]);
            }
            i = j + 1;
        }
        return sb.toString();
    }
}
