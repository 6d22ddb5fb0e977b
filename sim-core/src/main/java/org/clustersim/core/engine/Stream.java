package org.clustersim.core.engine;

/**
 * An ordered queue of tasks on one device, like a CUDA stream: its tasks run one at a time in
 * the order they were added.
 *
 * @param id     dense index over all streams of the task graph
 * @param device device the stream belongs to
 * @param name   short name, unique per device, e.g. {@code compute} or {@code pp-send-next}
 * @param kind   compute or communication
 */
public record Stream(int id, int device, String name, StreamKind kind) {
}
