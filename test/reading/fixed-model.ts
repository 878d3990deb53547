import { DIMENSION } from '../../src/reading/features';
import { HEADS, LinearModel, OUTPUTS, SEVERITY_ORIGIN } from '../../src/reading/model';
import { LAYERS, VALENCES, type Layer, type Valence } from '../../src/vocab';

/**
 * A model with no word weights: its biases alone decide keep, layer, valence and the severity
 * move, so a test of what surrounds the model (the severity terms, the LLM grader) does not
 * depend on the trained weights.
 */
export function fixedModel(o: {
  keep: boolean;
  layer?: Layer;
  valence?: Valence;
  severity?: number;
}): LinearModel {
  const bias = new Float64Array(OUTPUTS);
  bias[HEADS.keep] = o.keep ? 10 : -10;
  bias[HEADS.layer + LAYERS.indexOf(o.layer ?? 'military')] = 5;
  bias[HEADS.valence + VALENCES.indexOf(o.valence ?? 'crisis')] = 5;
  // `severity`: the model's estimate of the severity (default 5)
  bias[HEADS.severity] = (o.severity ?? 5) - SEVERITY_ORIGIN;
  return new LinearModel(new Float32Array(DIMENSION * OUTPUTS), bias, 0.5);
}
