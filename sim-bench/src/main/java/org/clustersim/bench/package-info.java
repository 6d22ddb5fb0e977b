/**
 * Benchmarks that print figures (JMH and plain timed commands): the kernel's event rate, a
 * data-parallel all-reduce, and one command repeated in one JVM. Figures are recorded in
 * docs/benchmarks.md with the command that produced them; no test asserts a time.
 *
 * <p>May depend on any module; nothing depends on it.
 */
package org.clustersim.bench;
