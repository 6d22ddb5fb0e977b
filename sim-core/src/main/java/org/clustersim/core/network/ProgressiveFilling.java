package org.clustersim.core.network;

/**
 * Max-min fairness by progressive filling: the link with the smallest fair share (capacity
 * left over its unfrozen flows; ties to the lower index) freezes its flows at that share, and
 * every other link they cross gives up that much capacity and one flow, until every flow is
 * frozen. Links sit in an indexed heap keyed by share. Freezing flows at the least share can
 * only raise the other links' shares, so a rise is not sifted when it happens: the link is
 * re-keyed when it reaches the top, and a key is then never above the share it stands for,
 * which makes the verified top the true least share (ties to the lower index) with one sift per
 * link polled instead of one per flow frozen. Its arrays are reused from one call to the next
 * (one rating at a time): the flow model calls it for every re-rating.
 */
final class ProgressiveFilling implements MaxMinSolver {
    /** Per link: capacity left, share key, flows not frozen yet, heap position. */
    private double[] cap = new double[0];
    private double[] key = new double[0];
    private int[] unfrozen = new int[0];
    /** Per link, where its flows start in {@link #flowsOf} (one past the last link: the end). */
    private int[] start = new int[1];
    private int[] fill = new int[0];
    private int[] heap = new int[0];
    private int[] pos = new int[0];
    private int heapSize;
    /** Per flow: whether frozen, and its rate. */
    private boolean[] frozen = new boolean[0];
    private double[] rate = new double[0];
    /** The flows of every link, link by link (the problem's hops transposed). */
    private int[] flowsOf = new int[0];

    @Override
    public double[] solve(int nl, double[] capacity, int nf, int[] hopStart, int[] hopLink) {
        sized(nl, nf, hopStart[nf]);
        for (int i = 0; i < nl; i++) {
            cap[i] = capacity[i];
            unfrozen[i] = 0;
        }
        for (int k = hopStart[0], end = hopStart[nf]; k < end; k++) {
            unfrozen[hopLink[k]]++;
        }
        // flows of each link in compressed rows: flowsOf[start[li] .. start[li + 1])
        start[0] = 0;
        for (int i = 0; i < nl; i++) {
            start[i + 1] = start[i] + unfrozen[i];
            fill[i] = start[i];
        }
        for (int f = 0; f < nf; f++) {
            for (int k = hopStart[f]; k < hopStart[f + 1]; k++) {
                int li = hopLink[k];
                flowsOf[fill[li]++] = f;
            }
            frozen[f] = false;
            rate[f] = 0;
        }
        heapSize = 0;
        for (int i = 0; i < nl; i++) {
            pos[i] = -1;
            if (unfrozen[i] > 0) {
                key[i] = cap[i] / unfrozen[i];
                heap[heapSize] = i;
                pos[i] = heapSize++;
            }
        }
        for (int h = heapSize / 2 - 1; h >= 0; h--) {
            siftDown(h);
        }
        while (heapSize > 0) {
            int li = heap[0];
            double current = Math.max(0, cap[li]) / unfrozen[li];
            if (current != key[li]) {
                // a share that rose since it was keyed: re-key it and look again
                key[li] = current;
                siftDown(0);
                continue;
            }
            remove(li);
            double share = Math.max(0, cap[li] / unfrozen[li]);
            for (int k = start[li]; k < start[li + 1]; k++) {
                int f = flowsOf[k];
                if (frozen[f]) {
                    continue;
                }
                frozen[f] = true;
                rate[f] = share;
                for (int q = hopStart[f]; q < hopStart[f + 1]; q++) {
                    int lj = hopLink[q];
                    cap[lj] -= share;
                    unfrozen[lj]--;
                    if (lj != li && pos[lj] >= 0) {
                        if (unfrozen[lj] == 0) {
                            remove(lj);
                        } else {
                            // freezing at the least share never lowers another link's share but
                            // for rounding; a rise is left until the link reaches the top
                            double fresh = Math.max(0, cap[lj]) / unfrozen[lj];
                            if (fresh < key[lj]) {
                                key[lj] = fresh;
                                siftUp(pos[lj]);
                            }
                        }
                    }
                }
            }
        }
        return rate;
    }

    @Override
    public double leftover(int link) {
        return cap[link];
    }

    private void sized(int links, int flows, int hops) {
        if (cap.length < links) {
            int n = Math.max(links, cap.length * 2);
            cap = new double[n];
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
            rate = new double[n];
        }
        if (flowsOf.length < hops) {
            flowsOf = new int[Math.max(hops, flowsOf.length * 2)];
        }
    }

    private boolean less(int a, int b) {
        return key[a] != key[b] ? key[a] < key[b] : a < b;
    }

    private void remove(int link) {
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

    private void siftUp(int h) {
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

    private void siftDown(int h) {
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
