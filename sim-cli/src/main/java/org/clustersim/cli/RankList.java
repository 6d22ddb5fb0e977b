package org.clustersim.cli;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.clustersim.core.input.InputException;
import org.clustersim.topology.Topology;

/**
 * Parses a rank selection: {@code all}, lists and ranges ({@code 0-7,16,18-19}), or named
 * groups: {@code node:N} (the GPUs of server N) and {@code rail:R} (GPU R of every server).
 * Parts may be combined with commas; order is kept, duplicates rejected.
 */
final class RankList {
    private RankList() {
    }

    static int[] parse(String spec, Topology t) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            List<Integer> add = new ArrayList<>();
            if (p.equals("all")) {
                for (int d = 0; d < t.deviceCount(); d++) {
                    add.add(d);
                }
            } else if (p.startsWith("node:")) {
                int node = number(p.substring(5), spec);
                for (int d = 0; d < t.deviceCount(); d++) {
                    if (t.device(d).node() == node) {
                        add.add(d);
                    }
                }
                if (add.isEmpty()) {
                    throw new InputException("--ranks: no server " + node + " in " + t.name());
                }
            } else if (p.startsWith("rail:")) {
                int rail = number(p.substring(5), spec);
                int perNode = perNode(t);
                if (rail >= perNode) {
                    throw new InputException("--ranks: rail " + rail + " does not exist; servers have " + perNode
                            + " GPUs");
                }
                for (int d = rail; d < t.deviceCount(); d += perNode) {
                    add.add(d);
                }
            } else if (p.matches("\\d+-\\d+")) {
                int from = number(p.substring(0, p.indexOf('-')), spec);
                int to = number(p.substring(p.indexOf('-') + 1), spec);
                if (to < from) {
                    throw new InputException("--ranks: range " + p + " runs backwards");
                }
                for (int d = from; d <= to; d++) {
                    add.add(d);
                }
            } else {
                add.add(number(p, spec));
            }
            for (int d : add) {
                if (d < 0 || d >= t.deviceCount()) {
                    throw new InputException("--ranks: GPU " + d + " does not exist; " + t.name() + " has GPUs 0-"
                            + (t.deviceCount() - 1));
                }
                if (!out.add(d)) {
                    throw new InputException("--ranks: GPU " + d + " is listed twice");
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int perNode(Topology t) {
        int n = 0;
        for (int d = 0; d < t.deviceCount() && t.device(d).node() == t.device(0).node(); d++) {
            n++;
        }
        return n;
    }

    private static int number(String s, String spec) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new InputException("--ranks: cannot read '" + spec + "'; expected all, N, N-M, node:N or rail:R, "
                    + "comma-separated");
        }
    }
}
