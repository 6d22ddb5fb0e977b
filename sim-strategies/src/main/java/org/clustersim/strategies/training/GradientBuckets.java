package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

/**
 * How a stage's gradients fall into buckets. The stage's backward completes its weight gradients
 * in parts (the logits, then layer by layer, in backward order); a bucket closes at the first
 * part that brings it to the bucket size, and at the last part. Megatron-core fills its
 * buckets in that order too (parameters in reverse, DistributedDataParallel), and uses the same
 * buckets for the distributed optimizer's all-gather of updated weights, which therefore runs
 * bucket by bucket in the opposite, forward, order.
 */
final class GradientBuckets {
    /**
     * One bucket.
     *
     * @param firstPart the first part (backward order) in it
     * @param lastPart  the last part in it: the one whose completion closes it
     * @param bytes     its size in bytes of main gradients
     */
    record Bucket(int firstPart, int lastPart, double bytes) {
    }

    private GradientBuckets() {
    }

    /** Splits {@code bytes} of gradients completed in {@code parts} equal parts into buckets of {@code bucketBytes}. */
    static List<Bucket> split(int parts, double bytes, long bucketBytes) {
        List<Bucket> out = new ArrayList<>();
        double partBytes = bytes / parts;
        double pending = 0;
        int first = 0;
        for (int i = 0; i < parts; i++) {
            pending += partBytes;
            if (pending < bucketBytes && i < parts - 1) {
                continue;
            }
            out.add(new Bucket(first, i, pending));
            pending = 0;
            first = i + 1;
        }
        return out;
    }
}
