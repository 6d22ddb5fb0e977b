package org.clustersim.strategies.collective;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.topology.Topology;

/**
 * The devices taking part in a collective, in rank order.
 *
 * @param devices device indices; rank i is devices[i]
 */
public record CommGroup(int[] devices) {
    public CommGroup {
        if (devices.length < 1) {
            throw new IllegalArgumentException("a group needs at least one device");
        }
        devices = devices.clone();
        int[] sorted = devices.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new IllegalArgumentException("device " + sorted[i] + " appears twice in the group");
            }
        }
    }

    public int size() {
        return devices.length;
    }

    public int device(int rank) {
        return devices[rank];
    }

    /** Devices grouped by server, servers in order of first appearance. */
    public List<int[]> byNode(Topology t) {
        Map<Integer, List<Integer>> m = new LinkedHashMap<>();
        for (int d : devices) {
            m.computeIfAbsent(t.device(d).node(), k -> new ArrayList<>()).add(d);
        }
        List<int[]> out = new ArrayList<>();
        for (List<Integer> l : m.values()) {
            out.add(l.stream().mapToInt(Integer::intValue).toArray());
        }
        return out;
    }

    /**
     * Why a two-level (intra-server, then across servers) algorithm cannot run over this group:
     * it sits in one server, or its servers contribute different numbers of GPUs; empty if it can.
     */
    public java.util.Optional<String> notTwoLevel(Topology t) {
        List<int[]> nodes = byNode(t);
        if (nodes.size() < 2) {
            return java.util.Optional.of("the group sits in one server");
        }
        for (int[] node : nodes) {
            if (node.length != nodes.get(0).length) {
                return java.util.Optional.of("every server must contribute the same number of GPUs");
            }
        }
        return java.util.Optional.empty();
    }

    /** Whether every device sits in one server (one NVSwitch domain). */
    public boolean singleNode(Topology t) {
        return byNode(t).size() == 1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommGroup g && Arrays.equals(devices, g.devices);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(devices);
    }

    @Override
    public String toString() {
        return Arrays.toString(devices);
    }
}
