/**
 * Writing a simulated timeline as a trace for Perfetto: Chrome's trace-event JSON or Perfetto's
 * native protobuf, both streamed, with the same content.
 *
 * <p>Depends on {@code core.engine} for the timeline, Jackson's generator and protobuf-java.
 */
package org.clustersim.core.trace;
