/**
 * The HTML report and static plots: figures built only from measured data, drawn once onto a
 * canvas that writes SVG or paints PNG, assembled into pages of blocks.
 *
 * <p>Depends on {@code cli.output} and the study layer.
 */
package org.clustersim.cli.report;
