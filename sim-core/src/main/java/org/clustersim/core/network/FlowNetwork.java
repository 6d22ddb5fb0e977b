package org.clustersim.core.network;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The {@code flow} fidelity: every flow is a fluid stream over the links of its route, and
 * link capacity is shared among the flows crossing it by max-min fairness (progressive
 * filling: raise every flow's rate together until a link saturates, freeze the flows through
 * it, continue with the rest). A flow arrives when its last byte has drained plus its route's
 * latency.
 *
 * <p>When flows start, finish, or a link changes state, only flows the change can reach are
 * re-rated (incremental max-min): the search spreads from the change through <em>tight</em>
 * links (saturated in the current allocation, or carrying a few flows), never through a link
 * with spare capacity, since no flow's rate is limited by such a link. The flows reached are
 * re-rated by progressive filling in which the links they reach but did not cross into keep
 * the capacity the other flows leave; if that saturates one of those links, the search
 * crosses it too and the rating is repeated. The result is the max-min allocation of all
 * flows (it is unique, and every flow keeps a saturated bottleneck link on which it is
 * largest), found from a few hundred flows where a whole fabric's component holds thousands.
 * Remaining bytes are settled at the old rates first. Finish times live in the network's own
 * indexed heap, and the kernel holds one timer event for the earliest of them,
 * so the number of kernel events grows with flows and rate changes, never with bytes.
 */
public final class FlowNetwork implements FabricNetwork {
    private static final double EPSILON_BYTES = 1e-6;
    /**
     * A link counts as saturated within this fraction of its capacity. Erring towards "tight"
     * only widens a re-rating; a true bottleneck carries its capacity to rounding (1e-15).
     */
    private static final double TIGHT = 1e-7;
    /** Links carrying at most this many flows are always crossed: cheaper than a second rating. */
    static final int FEW_FLOWS = 4;

    private final Topology topology;
    private final SimKernel kernel;
    private final LinkStates states;
    private final LinkUsage usage;
    /** Per link, the flows crossing it in slots [0, onLinkCount); each flow knows its slot per hop. */
    private final ActiveFlow[][] onLink;
    private final int[] onLinkCount;
    private final double[] linkRate;
    /** Scratch for {@link #maxMin}: a link's index inside the component being rated. */
    private final int[] componentIndex;
    private final MaxMinScratch scratch = new MaxMinScratch();
    /** Per link, the re-rating pass that last crossed it (no mark set to clear per pass). */
    private final long[] linkSeenIn;
    /** Per link, the re-rating pass that last found it at the edge of the flows re-rated. */
    private final long[] linkEdgeIn;
    private final List<ActiveFlow> component = new ArrayList<>();
    private final Ints crossed = new Ints();
    private final Ints edge = new Ints();
    private final Ints rated = new Ints();
    /** Links by id, and their nominal capacities in bytes per ns: the hot loops work on ids. */
    private final Link[] linkOf;
    private final double[] nominal;
    /** Per link, the timer pass that last listed it among the links freed by finishing flows. */
    private final long[] linkFreedIn;
    private long timerPasses;
    private final Ints freed = new Ints();
    private final long[] linkBusySince;
    private final FinishHeap finishing = new FinishHeap();
    private long timerAt = Long.MAX_VALUE;
    private long nextId;
    private long rerates;
    private long flowsRerated;
    private final org.clustersim.topology.Router.LinkLoad load;
    private final int fewFlows;

    /** With static ECMP routing. */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters) {
        this(topology, kernel, states, counters, false);
    }

    /**
     * @param adaptive route each flow, when it starts, over the equal-cost next hops carrying the
     *                 fewest flows (adaptive routing) instead of by a static hash
     */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters, boolean adaptive) {
        this(topology, kernel, states, counters, adaptive, FEW_FLOWS);
    }

    /** @param fewFlows links with at most this many flows are crossed by every re-rating that reaches them (tests vary it) */
    FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters, boolean adaptive,
                int fewFlows) {
        this.fewFlows = fewFlows;
        this.load = adaptive ? this::flowsOn : null;
        this.topology = topology;
        this.kernel = kernel;
        this.states = states;
        this.usage = new LinkUsage(topology, counters);
        int n = topology.links().size();
        onLink = new ActiveFlow[n][];
        onLinkCount = new int[n];
        linkRate = new double[n];
        componentIndex = new int[n];
        linkSeenIn = new long[n];
        java.util.Arrays.fill(linkSeenIn, -1);
        linkEdgeIn = new long[n];
        java.util.Arrays.fill(linkEdgeIn, -1);
        linkBusySince = new long[n];
        linkOf = topology.links().toArray(new Link[0]);
        nominal = new double[n];
        for (int i = 0; i < n; i++) {
            nominal[i] = linkOf[i].bandwidthBytesPerS() / 1e9;
        }
        linkFreedIn = new long[n];
        java.util.Arrays.fill(linkFreedIn, -1);
    }

    /** A growable list of ints (link ids), reused from one re-rating to the next. */
    private static final class Ints {
        int[] a = new int[64];
        int size;

        void add(int v) {
            if (size == a.length) {
                a = java.util.Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        void addAll(Ints other) {
            for (int i = 0; i < other.size; i++) {
                add(other.a[i]);
            }
        }

        int get(int i) {
            return a[i];
        }

        int size() {
            return size;
        }

        boolean isEmpty() {
            return size == 0;
        }

        void clear() {
            size = 0;
        }
    }

    /** One phase in progress: it completes when its last flow has arrived. */
    private final class PhaseRun {
        final Runnable onDone;
        final long extraLatency;
        int pending;
        long lastArrival;

        PhaseRun(int flows, Runnable onDone, long extraLatency, long now) {
            this.pending = flows;
            this.onDone = onDone;
            this.extraLatency = extraLatency;
            this.lastArrival = now;
        }

        void arrived(long at) {
            lastArrival = Math.max(lastArrival, at);
            if (--pending == 0) {
                kernel.schedule(lastArrival + extraLatency, onDone);
            }
        }
    }

    /** A flow with bytes left to drain. */
    private static final class ActiveFlow {
        final long id;
        final Flow spec;
        final String owner;
        final PhaseRun phase;
        /** Link ids of the route, shared with the route: never written. */
        int[] links;
        /** Per hop, this flow's slot in its link's flow array. */
        int[] slot;
        long latency;
        double remaining;
        double rate;
        long updatedAt;
        long finishAt = Long.MAX_VALUE;
        /** Position in the finish heap, -1 when not in it. */
        int heapIndex = -1;
        /** The re-rating pass that last reached this flow (replaces a visited set). */
        long seenIn = -1;
        boolean done;

        ActiveFlow(long id, Flow spec, String owner, PhaseRun phase, double bytes, long now) {
            this.id = id;
            this.spec = spec;
            this.owner = owner;
            this.phase = phase;
            this.remaining = bytes;
            this.updatedAt = now;
        }
    }

    @Override
    public void transfer(String owner, Phase phase, Runnable onDone) {
        long now = kernel.now();
        PhaseRun run = new PhaseRun(phase.flows().size(), onDone, phase.extraLatencyNs(), now);
        List<ActiveFlow> started = new ArrayList<>();
        for (Flow f : phase.flows()) {
            if (f.srcDevice() == f.dstDevice()) {
                run.arrived(now);
                continue;
            }
            Route route = Routes.of(topology, f, states, owner, load);
            if (f.bytes() == 0) {
                run.arrived(now + latencyOf(route.links()));
                continue;
            }
            ActiveFlow a = new ActiveFlow(nextId++, f, owner, run, f.bytes(), now);
            place(a, route);
            for (int id : a.links) {
                usage.carried(linkOf[id], f.bytes());
            }
            started.add(a);
        }
        if (!started.isEmpty()) {
            rerate(started, now);
        }
    }

    private long latencyOf(List<Link> links) {
        long latency = 0;
        for (Link l : links) {
            latency += states.latencyNs(l);
        }
        return latency;
    }

    private void place(ActiveFlow a, Route route) {
        a.links = route.sharedIds();
        a.latency = states.version() == 0 ? route.latencyNs() : latencyOf(route.links());
        a.slot = new int[a.links.length];
        for (int h = 0; h < a.links.length; h++) {
            int id = a.links[h];
            ActiveFlow[] on = onLink[id];
            int n = onLinkCount[id];
            if (on == null) {
                on = new ActiveFlow[4];
                onLink[id] = on;
            } else if (n == on.length) {
                on = java.util.Arrays.copyOf(on, n * 2);
                onLink[id] = on;
            }
            on[n] = a;
            a.slot[h] = n;
            onLinkCount[id] = n + 1;
        }
    }

    /** Takes a flow off its links in constant time per hop: the link's last flow moves into its slot. */
    private void unplace(ActiveFlow a) {
        for (int h = 0; h < a.links.length; h++) {
            int id = a.links[h];
            ActiveFlow[] on = onLink[id];
            int last = --onLinkCount[id];
            ActiveFlow moved = on[last];
            on[last] = null;
            if (moved != a) {
                int s = a.slot[h];
                on[s] = moved;
                int[] ml = moved.links;
                for (int k = 0; k < ml.length; k++) {
                    if (ml[k] == id) {
                        moved.slot[k] = s;
                        break;
                    }
                }
            }
        }
    }

    /**
     * Changes a link's state now (a fault): flows crossing a link that goes down are re-routed
     * with their remaining bytes, and every affected component is re-rated.
     *
     * @throws UnreachableException if a re-routed flow can no longer reach its destination
     */
    @Override
    public void setLinkState(Link link, double capacityFactor, long extraLatencyNs) {
        long now = kernel.now();
        states.setFactor(link.id(), capacityFactor);
        states.setExtraLatencyNs(link.id(), extraLatencyNs);
        List<ActiveFlow> affected = new ArrayList<>(flowsOnLink(link.id()));
        Ints changed = new Ints();
        changed.add(link.id());
        if (capacityFactor == 0) {
            for (ActiveFlow a : affected) {
                settle(a, now);
                clearRate(a, now);
                for (int id : a.links) {
                    changed.add(id);
                }
                unplace(a);
                place(a, Routes.of(topology, a.spec, states, a.owner, load));
            }
        }
        rerate(affected, changed, now);
    }

    private int flowsOn(int link) {
        return onLinkCount[link];
    }

    private List<ActiveFlow> flowsOnLink(int link) {
        return onLink[link] == null ? List.of() : java.util.Arrays.asList(onLink[link]).subList(0, onLinkCount[link]);
    }

    /** Whether a link limits some flow now: saturated (within {@link #TIGHT}), or so lightly used that crossing it is cheap. */
    private boolean tight(int id) {
        return onLinkCount[id] <= fewFlows || linkRate[id] >= capacity(id) * (1 - TIGHT);
    }

    /** A link's capacity in its current state, bytes per ns. */
    private double capacity(int id) {
        return nominal[id] * states.factor(id);
    }

    private void settle(ActiveFlow a, long now) {
        a.remaining = Math.max(0, a.remaining - a.rate * (now - a.updatedAt));
        a.updatedAt = now;
    }

    /** Removes a flow's rate from its links' totals before it leaves them. */
    private void clearRate(ActiveFlow a, long now) {
        if (a.rate > 0) {
            for (int id : a.links) {
                addLinkRate(id, -a.rate, now);
            }
            a.rate = 0;
        }
    }

    /** Re-rates what the new or re-routed flows {@code seeds} can reach, at time {@code now}. */
    private void rerate(List<ActiveFlow> seeds, long now) {
        rerate(seeds, NO_LINKS, now);
    }

    private static final Ints NO_LINKS = new Ints();

    /**
     * Re-rates, at time {@code now}, the flows that {@code seeds} and the flows on {@code seedLinks}
     * reach through tight links (the seed links are crossed whatever their load: they changed).
     * Finishing flows hand over their tight links rather than their neighbours: a spine link
     * carries hundreds of flows, and listing them once per finishing flow cost more than the rating.
     */
    private void rerate(List<ActiveFlow> seeds, Ints seedLinks, long now) {
        rerates++;
        long pass = rerates;
        List<ActiveFlow> flows = component;
        flows.clear();
        crossed.clear();
        edge.clear();
        for (int i = 0; i < seedLinks.size(); i++) {
            cross(seedLinks.get(i), pass);
        }
        for (ActiveFlow s : seeds) {
            if (!s.done && s.seenIn != pass) {
                s.seenIn = pass;
                flows.add(s);
            }
        }
        if (flows.isEmpty()) {
            armTimer();
            return;
        }
        int spread = 0;
        double[] newRate;
        while (true) {
            for (; spread < flows.size(); spread++) {
                for (int id : flows.get(spread).links) {
                    if (linkSeenIn[id] == pass) {
                        continue;
                    }
                    if (tight(id)) {
                        cross(id, pass);
                    } else if (linkEdgeIn[id] != pass) {
                        linkEdgeIn[id] = pass;
                        edge.add(id);
                    }
                }
            }
            rated.clear();
            rated.addAll(crossed);
            for (int i = 0; i < edge.size(); i++) {
                int id = edge.get(i);
                if (linkSeenIn[id] != pass) {
                    rated.add(id);
                }
            }
            newRate = maxMin(flows, rated, crossed.size());
            int before = flows.size();
            for (int i = crossed.size(), n = rated.size(); i < n; i++) {
                if (scratch.saturated(i)) {
                    cross(rated.get(i), pass);
                }
            }
            // a saturated link whose flows were all rated already offered its whole capacity:
            // crossing it changes nothing, so only new flows call for another rating
            if (flows.size() == before) {
                break;
            }
        }
        flowsRerated += flows.size();
        for (int i = 0; i < flows.size(); i++) {
            ActiveFlow a = flows.get(i);
            settle(a, now);
            double r = newRate[i];
            if (r != a.rate) {
                for (int id : a.links) {
                    addLinkRate(id, r - a.rate, now);
                }
                a.rate = r;
            }
            long finish = r > 0 ? now + (long) Math.ceil(a.remaining / r) : Long.MAX_VALUE;
            if (finish != a.finishAt) {
                a.finishAt = finish;
                finishing.update(a);
            }
        }
        armTimer();
    }

    /** Crosses link {@code l} in this pass: its flows not reached yet join the re-rating. */
    private void cross(int id, long pass) {
        if (linkSeenIn[id] == pass) {
            return;
        }
        linkSeenIn[id] = pass;
        crossed.add(id);
        ActiveFlow[] on = onLink[id];
        for (int i = 0, n = onLinkCount[id]; i < n; i++) {
            ActiveFlow b = on[i];
            if (!b.done && b.seenIn != pass) {
                b.seenIn = pass;
                component.add(b);
            }
        }
    }

    /**
     * Max-min fair rates (bytes per ns) of {@code flows} by progressive filling over {@code links}:
     * the link with the smallest fair share (capacity left over its unfrozen flows; ties to the
     * lower index) freezes its flows at that share, and every other link they cross gives up that
     * much capacity and one flow. The first {@code crossedLinks} links carry only these flows and
     * offer their whole capacity; the others offer what the flows outside the rating leave (their
     * rates stay as they are). Links sit in an indexed heap keyed by share and updated in place;
     * the scratch arrays are reused from one call to the next.
     */
    private double[] maxMin(List<ActiveFlow> flows, Ints links, int crossedLinks) {
        int nl = links.size();
        int nf = flows.size();
        MaxMinScratch m = scratch.sized(nl, nf);
        int[] index = componentIndex;
        for (int i = 0; i < nl; i++) {
            index[links.get(i)] = i;
            m.full[i] = capacity(links.get(i));
            m.inside[i] = 0;
            m.unfrozen[i] = 0;
        }
        int hops = 0;
        for (int f = 0; f < nf; f++) {
            hops += flows.get(f).links.length;
        }
        m.hops(hops);
        int k0 = 0;
        for (int f = 0; f < nf; f++) {
            ActiveFlow a = flows.get(f);
            m.flowLinkStart[f] = k0;
            for (int id : a.links) {
                int li = index[id];
                m.flowLink[k0++] = li;
                m.unfrozen[li]++;
                m.inside[li] += a.rate;
            }
            m.frozen[f] = false;
        }
        m.flowLinkStart[nf] = k0;
        for (int i = 0; i < nl; i++) {
            m.cap[i] = i < crossedLinks ? m.full[i]
                    : Math.max(0, m.full[i] - (linkRate[links.get(i)] - m.inside[i]));
        }
        // flows of each link in compressed rows: flowsOf[start[li] .. start[li + 1])
        int[] start = m.start;
        start[0] = 0;
        for (int i = 0; i < nl; i++) {
            start[i + 1] = start[i] + m.unfrozen[i];
            m.fill[i] = start[i];
        }
        for (int f = 0; f < nf; f++) {
            for (int k = m.flowLinkStart[f]; k < m.flowLinkStart[f + 1]; k++) {
                int li = m.flowLink[k];
                m.flowsOf[m.fill[li]++] = f;
            }
        }
        double[] rate = new double[nf];
        m.heapSize = 0;
        for (int i = 0; i < nl; i++) {
            m.pos[i] = -1;
            if (m.unfrozen[i] > 0) {
                m.key[i] = m.cap[i] / m.unfrozen[i];
                m.heap[m.heapSize] = i;
                m.pos[i] = m.heapSize++;
            }
        }
        for (int h = m.heapSize / 2 - 1; h >= 0; h--) {
            m.siftDown(h);
        }
        while (m.heapSize > 0) {
            int li = m.pollMin();
            double share = Math.max(0, m.cap[li] / m.unfrozen[li]);
            for (int k = start[li]; k < start[li + 1]; k++) {
                int f = m.flowsOf[k];
                if (m.frozen[f]) {
                    continue;
                }
                m.frozen[f] = true;
                rate[f] = share;
                for (int q = m.flowLinkStart[f]; q < m.flowLinkStart[f + 1]; q++) {
                    int lj = m.flowLink[q];
                    m.cap[lj] -= share;
                    m.unfrozen[lj]--;
                    if (lj != li && m.pos[lj] >= 0) {
                        if (m.unfrozen[lj] == 0) {
                            m.remove(lj);
                        } else {
                            m.key[lj] = Math.max(0, m.cap[lj]) / m.unfrozen[lj];
                            m.siftDown(m.pos[lj]);
                            m.siftUp(m.pos[lj]);
                        }
                    }
                }
            }
        }
        return rate;
    }

    private void addLinkRate(int id, double delta, long now) {
        Link l = linkOf[id];
        double before = linkRate[id];
        double after = before + delta;
        if (Math.abs(after) < 1e-12) {
            after = 0;
        }
        if (before == 0 && after > 0) {
            linkBusySince[id] = now;
        } else if (before > 0 && after == 0) {
            usage.busy(l, now - linkBusySince[id]);
        }
        linkRate[id] = after;
        usage.rateChange(l, now, delta * 1e9);
    }

    private void armTimer() {
        ActiveFlow first = finishing.peek();
        if (first != null && first.finishAt < timerAt) {
            timerAt = first.finishAt;
            long at = timerAt;
            kernel.schedule(at, () -> onTimer(at));
        }
    }

    /** Finishes every flow whose last byte has drained by now, then re-rates what they leave behind. */
    private void onTimer(long at) {
        if (at != timerAt) {
            return;
        }
        timerAt = Long.MAX_VALUE;
        long now = kernel.now();
        long timerPass = ++timerPasses;
        freed.clear();
        while (finishing.peek() != null && finishing.peek().finishAt <= now) {
            ActiveFlow a = finishing.peek();
            settle(a, now);
            if (a.remaining > EPSILON_BYTES * Math.max(1, a.spec.bytes())) {
                // rounding left a sliver: finish it at the next nanosecond
                a.finishAt = now + 1;
                finishing.update(a);
                continue;
            }
            finishing.poll();
            for (int id : a.links) {
                // flows finishing together share links: list each once
                if (linkFreedIn[id] != timerPass && tight(id)) {
                    linkFreedIn[id] = timerPass;
                    freed.add(id);
                }
            }
            a.done = true;
            clearRate(a, now);
            unplace(a);
            a.phase.arrived(now + a.latency);
        }
        if (!freed.isEmpty()) {
            rerate(List.of(), freed, now);
        } else {
            armTimer();
        }
    }

    @Override
    public LinkUsage usage() {
        return usage;
    }

    /** How many times components were re-rated. */
    public long rerates() {
        return rerates;
    }

    /** Flows re-rated, summed over all re-ratings. */
    public long flowsRerated() {
        return flowsRerated;
    }

    /** Current total rate on a link, bytes per ns. */
    double linkRate(int linkId) {
        return linkRate[linkId];
    }

    /**
     * The flows with a finite finish time, in an indexed binary heap ordered by finish time, then
     * by flow id (the order in which simultaneous finishes are settled). A flow whose finish
     * moves is sifted in place: no stale entries, nothing allocated per re-rating. The keys sit
     * in primitive arrays beside the flows, so that comparing two entries reads no flow object
     * (with thousands of flows in flight, those reads were cache misses).
     */
    private static final class FinishHeap {
        private ActiveFlow[] heap = new ActiveFlow[64];
        private long[] at = new long[64];
        private long[] ids = new long[64];
        private int size;

        ActiveFlow peek() {
            return size == 0 ? null : heap[0];
        }

        ActiveFlow poll() {
            ActiveFlow top = heap[0];
            remove(top);
            return top;
        }

        /** Puts {@code a} where its (new) finish time belongs; a flow that will not finish leaves the heap. */
        void update(ActiveFlow a) {
            if (a.finishAt == Long.MAX_VALUE) {
                if (a.heapIndex >= 0) {
                    remove(a);
                }
                return;
            }
            if (a.heapIndex < 0) {
                if (size == heap.length) {
                    heap = java.util.Arrays.copyOf(heap, size * 2);
                    at = java.util.Arrays.copyOf(at, size * 2);
                    ids = java.util.Arrays.copyOf(ids, size * 2);
                }
                siftUp(size++, a, a.finishAt, a.id);
            } else {
                int h = a.heapIndex;
                long old = at[h];
                if (a.finishAt < old) {
                    siftUp(h, a, a.finishAt, a.id);
                } else if (a.finishAt > old) {
                    siftDown(h, a, a.finishAt, a.id);
                }
            }
        }

        private void remove(ActiveFlow a) {
            int h = a.heapIndex;
            int lastIndex = --size;
            ActiveFlow last = heap[lastIndex];
            long lastAt = at[lastIndex];
            long lastId = ids[lastIndex];
            heap[lastIndex] = null;
            a.heapIndex = -1;
            if (h < lastIndex) {
                if (h > 0 && before(lastAt, lastId, at[(h - 1) >>> 1], ids[(h - 1) >>> 1])) {
                    siftUp(h, last, lastAt, lastId);
                } else {
                    siftDown(h, last, lastAt, lastId);
                }
            }
        }

        private static boolean before(long xAt, long xId, long yAt, long yId) {
            return xAt != yAt ? xAt < yAt : xId < yId;
        }

        /** Places (x, its keys) at hole h or above. */
        private void siftUp(int h, ActiveFlow x, long xAt, long xId) {
            while (h > 0) {
                int parent = (h - 1) >>> 1;
                if (!before(xAt, xId, at[parent], ids[parent])) {
                    break;
                }
                move(parent, h);
                h = parent;
            }
            put(h, x, xAt, xId);
        }

        /** Places (x, its keys) at hole h or below. */
        private void siftDown(int h, ActiveFlow x, long xAt, long xId) {
            int half = size >>> 1;
            while (h < half) {
                int child = 2 * h + 1;
                int right = child + 1;
                if (right < size && before(at[right], ids[right], at[child], ids[child])) {
                    child = right;
                }
                if (!before(at[child], ids[child], xAt, xId)) {
                    break;
                }
                move(child, h);
                h = child;
            }
            put(h, x, xAt, xId);
        }

        private void move(int from, int to) {
            ActiveFlow f = heap[from];
            heap[to] = f;
            at[to] = at[from];
            ids[to] = ids[from];
            f.heapIndex = to;
        }

        private void put(int h, ActiveFlow x, long xAt, long xId) {
            heap[h] = x;
            at[h] = xAt;
            ids[h] = xId;
            x.heapIndex = h;
        }
    }

    /** Reusable arrays of {@link #maxMin}: per link of the component, per flow, per (flow, link) hop. */
    private static final class MaxMinScratch {
        double[] cap = new double[0];
        double[] full = new double[0];
        double[] inside = new double[0];
        double[] key = new double[0];
        int[] unfrozen = new int[0];
        int[] start = new int[1];
        int[] fill = new int[0];
        int[] heap = new int[0];
        int[] pos = new int[0];
        int heapSize;
        int[] flowLinkStart = new int[1];
        boolean[] frozen = new boolean[0];
        int[] flowLink = new int[0];
        int[] flowsOf = new int[0];

        MaxMinScratch sized(int links, int flows) {
            if (cap.length < links) {
                int n = Math.max(links, cap.length * 2);
                cap = new double[n];
                full = new double[n];
                inside = new double[n];
                key = new double[n];
                unfrozen = new int[n];
                start = new int[n + 1];
                fill = new int[n];
                heap = new int[n];
                pos = new int[n];
            }
            if (frozen.length < flows) {
                int n = Math.max(flows, frozen.length * 2);
                frozen = new boolean[n];
                flowLinkStart = new int[n + 1];
            }
            return this;
        }

        void hops(int hops) {
            if (flowLink.length < hops) {
                int n = Math.max(hops, flowLink.length * 2);
                flowLink = new int[n];
                flowsOf = new int[n];
            }
        }

        /** Whether link {@code li} of the last rating ended with no capacity to spare (within {@link #TIGHT}). */
        boolean saturated(int li) {
            return cap[li] <= full[li] * TIGHT;
        }

        private boolean less(int a, int b) {
            return key[a] != key[b] ? key[a] < key[b] : a < b;
        }

        int pollMin() {
            int top = heap[0];
            remove(top);
            return top;
        }

        void remove(int link) {
            int h = pos[link];
            int last = heap[--heapSize];
            pos[link] = -1;
            if (h < heapSize) {
                heap[h] = last;
                pos[last] = h;
                siftDown(h);
                siftUp(pos[last]);
            }
        }

        void siftUp(int h) {
            int x = heap[h];
            while (h > 0) {
                int parent = (h - 1) >>> 1;
                int p = heap[parent];
                if (!less(x, p)) {
                    break;
                }
                heap[h] = p;
                pos[p] = h;
                h = parent;
            }
            heap[h] = x;
            pos[x] = h;
        }

        void siftDown(int h) {
            int x = heap[h];
            int half = heapSize >>> 1;
            while (h < half) {
                int child = 2 * h + 1;
                int c = heap[child];
                int right = child + 1;
                if (right < heapSize && less(heap[right], c)) {
                    child = right;
                    c = heap[child];
                }
                if (!less(c, x)) {
                    break;
                }
                heap[h] = c;
                pos[c] = h;
                h = child;
            }
            heap[h] = x;
            pos[x] = h;
        }
    }
}
