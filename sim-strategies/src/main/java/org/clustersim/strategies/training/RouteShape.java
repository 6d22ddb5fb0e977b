package org.clustersim.strategies.training;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.clustersim.topology.Link;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * What a collective's plan and its contention-free estimate can see of where a list of GPUs
 * sits on a switched fabric: each GPU's server (servers numbered by first appearance), and for
 * every ordered pair of the GPUs on every channel a collective may use, the route's links
 * (numbered by first appearance), its latency and whether it leaves the scale-up domain, with
 * each link's bandwidth. The algorithms group GPUs by server and send on channels below the
 * GPUs a server holds (or a tree's two), and {@code Collectives.estimateNs} reads only which
 * flows share which links, the links' bandwidths and the routes' latencies: two GPU lists of one
 * shape get the same plans and the same estimates, position by position. A plan shares a stage
 * action's timing between layouts whose ranks sit on GPUs of one shape ({@link ActionTimes}),
 * not only on the same GPUs; static ECMP hashes the GPUs' numbers, so two lists whose routes
 * collide differently have different shapes.
 *
 * <p>Not for a torus, whose algorithms follow the chips' coordinates rather than the routes.
 */
final class RouteShape {
    private final long[] code;
    private final int hash;

    private RouteShape(long[] code) {
        this.code = code;
        this.hash = Arrays.hashCode(code);
    }

    /** The shape of {@code devices} (in this order) on {@code topology}. */
    static RouteShape of(Topology topology, int[] devices) {
        int n = devices.length;
        Map<Integer, Integer> servers = new HashMap<>();
        int most = 0;
        int[] perServer = new int[n];
        long[] code = new long[16];
        int at = 0;
        for (int d : devices) {
            int server = servers.computeIfAbsent(topology.device(d).node(), k -> servers.size());
            most = Math.max(most, ++perServer[server]);
            code = room(code, at, 1);
            code[at++] = server;
        }
        int channels = Math.max(2, most);
        Map<Integer, Integer> linkIndex = new HashMap<>();
        long[] bandwidths = new long[8];
        for (int c = 0; c < channels; c++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i == j) {
                        continue;
                    }
                    Route r = topology.route(devices[i], devices[j], c);
                    int[] ids = r.sharedIds();
                    code = room(code, at, 2 + ids.length);
                    code[at++] = r.latencyNs();
                    code[at++] = (topology.leavesScaleUp(devices[i], devices[j], c) ? 1L << 32 : 0) | ids.length;
                    for (int k = 0; k < ids.length; k++) {
                        Integer known = linkIndex.get(ids[k]);
                        if (known == null) {
                            known = linkIndex.size();
                            linkIndex.put(ids[k], known);
                            Link link = topology.links().get(ids[k]);
                            bandwidths = room(bandwidths, known, 1);
                            bandwidths[known] = Double.doubleToLongBits(link.bandwidthBytesPerS());
                        }
                        code[at++] = known;
                    }
                }
            }
        }
        int links = linkIndex.size();
        long[] all = Arrays.copyOf(code, at + links);
        System.arraycopy(bandwidths, 0, all, at, links);
        return new RouteShape(all);
    }

    private static long[] room(long[] a, int at, int more) {
        return at + more <= a.length ? a : Arrays.copyOf(a, Math.max(a.length * 2, at + more));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RouteShape s && s.hash == hash && Arrays.equals(s.code, code);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
