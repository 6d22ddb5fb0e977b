package org.clustersim.core.engine;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;

/**
 * What a communication task runs in a collective library's terms: a collective over a group of
 * devices, or one point-to-point send. The step builder attaches it where it plans the
 * communication, so that exporters (the Chakra ET writer) can say which collective, size and
 * group a task is, which its phases and flows no longer tell. The simulation never reads it.
 *
 * @param op      the operation: a collective's id ({@code allreduce}, {@code allgather},
 *                {@code reducescatter}, {@code alltoall}, {@code broadcast}, {@code reduce}) or
 *                {@link #SEND}
 * @param bytes   the size as the collective planner takes it (the whole buffer; the gathered array
 *                for all-gather and reduce-scatter), or the bytes sent
 * @param devices the group's devices in rank order; for a send, its source and destination
 */
public record CommCall(String op, long bytes, int[] devices) {
    /** The op of a point-to-point send. */
    public static final String SEND = "send";

    public CommCall {
        devices = devices.clone();
        if (devices.length == 0 || op.equals(SEND) && devices.length != 2) {
            throw new IllegalArgumentException(op + " over " + Arrays.toString(devices));
        }
    }

    /** A point-to-point send of {@code bytes} from {@code src} to {@code dst}. */
    public static CommCall send(int src, int dst, long bytes) {
        return new CommCall(SEND, bytes, new int[] {src, dst});
    }

    /** Whether this is a point-to-point send. */
    public boolean isSend() {
        return op.equals(SEND);
    }

    /** The same call with every device mapped through {@code device}. */
    public CommCall onDevices(IntUnaryOperator device) {
        int[] moved = new int[devices.length];
        for (int i = 0; i < moved.length; i++) {
            moved[i] = device.applyAsInt(devices[i]);
        }
        return new CommCall(op, bytes, moved);
    }

    /** Whether {@code device} takes part. */
    public boolean involves(int device) {
        for (int d : devices) {
            if (d == device) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int[] devices() {
        return devices.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommCall c && c.bytes == bytes && c.op.equals(op) && Arrays.equals(c.devices, devices);
    }

    @Override
    public int hashCode() {
        return (op.hashCode() * 31 + Long.hashCode(bytes)) * 31 + Arrays.hashCode(devices);
    }

    @Override
    public String toString() {
        return op + " " + bytes + " B over " + Arrays.toString(devices);
    }
}
