/**
 * The learned reader: four linear heads over the hashed features of ./features.ts, trained by
 * scripts/reader/train.ts on labelled news (scripts/reader/data) and shipped as one data file
 * (data/model.json: int8 weights, one scale per head, base64). `keep` is a logistic regression
 * (is the item a signal?), `layer` a softmax over the eight layers, `valence` a softmax over
 * crisis / update / resolution, `severity` a regression of the labelled severity (the facts are
 * among its features); the score is the rules' level (kind, casualties, scope, hedge) moved
 * halfway towards that estimate (`SEVERITY_SHARE`), by at most ±`SEVERITY_STEP`.
 * Decoded on first use, so a Worker's start-up does not pay for it.
 */
import { LAYERS, VALENCES, type Layer, type Valence } from '../vocab';
import modelFile from './data/model.json';
import { DIMENSION, type Features } from './features';

/** Output columns of the weight table, in order. */
export const HEADS = {
  keep: 0,
  layer: 1,
  valence: 1 + LAYERS.length,
  severity: 1 + LAYERS.length + VALENCES.length,
};
export const OUTPUTS = HEADS.severity + 1;
/**
 * How far the model may move the rules' severity level towards its own estimate. The level is
 * fitted to the labels (scripts/reader/levels.ts) and floored by casualties per the rubric: a
 * step of 1.5 ranks as well as an unbounded one in CV (0.54), and keeps a mass-casualty report
 * above a routine one when the linear head, which shrinks towards the mean, reads it low.
 */
export const SEVERITY_STEP = 1.5;
/**
 * The share of the gap between the level and the model's estimate the score moves by: halfway.
 * The level (kind, casualties) and the head (the words) each rank about as well alone and err on
 * different items, so their mean ranks better than either (outlet-grouped CV Spearman: level
 * 0.49, head 0.50, the head's full estimate within ±1.5 0.49, halfway 0.57).
 */
export const SEVERITY_SHARE = 0.5;
/** The severity head predicts the labelled severity minus this (the middle of the signals' scale). */
export const SEVERITY_ORIGIN = 3;

export interface Prediction {
  /** Probability that the item is a signal. */
  keep: number;
  /** Probabilities of the layers, in `LAYERS` order. */
  layers: number[];
  valences: number[];
  /** The model's estimate of the severity (0–10 scale, before the tier). */
  severity: number;
}

/** A linear model: `weights[bucket * OUTPUTS + output]`, plus one bias per output. */
export class LinearModel {
  constructor(
    readonly weights: Float32Array,
    readonly bias: Float64Array,
    /** The keep probability at or above which an English item is a signal. */
    readonly threshold: number,
    /**
     * The same for an item in another language: lower, because the model has read fewer labelled
     * items in each of them and its probability there leans towards the language's prior.
     */
    readonly otherThreshold: number = threshold,
  ) {}

  /** The keep threshold of an item in `language`. */
  thresholdFor(language: string | null): number {
    return language === 'en' ? this.threshold : this.otherThreshold;
  }

  /** Raw scores of every output. */
  scores(x: Features, out = new Float64Array(OUTPUTS)): Float64Array {
    out.set(this.bias);
    const w = this.weights;
    for (let i = 0; i < x.index.length; i++) {
      const base = x.index[i]! * OUTPUTS;
      const v = x.value[i]!;
      for (let k = 0; k < OUTPUTS; k++) out[k] = out[k]! + w[base + k]! * v;
    }
    return out;
  }

  predict(x: Features): Prediction {
    const s = this.scores(x);
    return {
      keep: sigmoid(s[HEADS.keep]!),
      layers: softmax(s, HEADS.layer, LAYERS.length),
      valences: softmax(s, HEADS.valence, VALENCES.length),
      severity: SEVERITY_ORIGIN + s[HEADS.severity]!,
    };
  }
}

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));

export function softmax(s: ArrayLike<number>, from: number, n: number): number[] {
  let max = -Infinity;
  for (let k = 0; k < n; k++) max = Math.max(max, s[from + k]!);
  const out: number[] = [];
  let sum = 0;
  for (let k = 0; k < n; k++) {
    const e = Math.exp(s[from + k]! - max);
    out.push(e);
    sum += e;
  }
  return out.map((e) => e / sum);
}

const argmax = (p: readonly number[]): number => p.reduce((best, v, i) => (v > p[best]! ? i : best), 0);
/**
 * The probability a kind of event the text names adds to its layer when the layer is chosen: a
 * kind named in the headline is a fact of what the story is about (half as much when only the
 * summary names it). The model weighs that fact among thousands of n-grams; on the out-of-outlet
 * CV the nudge moved layer accuracy from 0.893 to 0.899 (0.1: 0.895, 0.3: 0.897; src/reading/README.md).
 */
export const KIND_NUDGE = 0.2;

/** The layer read: the model's most probable one, nudged towards the layers of the kinds named. */
export function layerOf(p: Prediction, kinds: readonly { layer: string; head: boolean }[] = []): Layer {
  const scores = [...p.layers];
  for (const k of kinds) {
    const i = LAYERS.indexOf(k.layer as Layer);
    if (i >= 0) scores[i] = scores[i]! + (k.head ? KIND_NUDGE : KIND_NUDGE / 2);
  }
  return LAYERS[argmax(scores)]!;
}
export const valenceOf = (p: Prediction): Valence => VALENCES[argmax(p.valences)]!;

/** The shipped file's shape (written by scripts/reader/train.ts). */
export interface ModelFile {
  version: number;
  dimension: number;
  outputs: number;
  threshold: number;
  otherThreshold: number;
  bias: number[];
  /** One scale per output: weight = int8 × scale. */
  scales: number[];
  /** base64 of the int8 table, bucket-major. */
  weights: string;
  trained: { items: number; labels: string };
}

/** Int8 per weight with one scale per output: the file stays small and decodes in milliseconds. */
export function quantise(model: LinearModel): { scales: number[]; bytes: Int8Array } {
  const scales = new Array<number>(OUTPUTS).fill(0);
  const w = model.weights;
  for (let i = 0; i < w.length; i++) {
    const k = i % OUTPUTS;
    scales[k] = Math.max(scales[k]!, Math.abs(w[i]!));
  }
  for (let k = 0; k < OUTPUTS; k++) scales[k] = scales[k]! / 127 || 1;
  const bytes = new Int8Array(w.length);
  for (let i = 0; i < w.length; i++) bytes[i] = Math.round(w[i]! / scales[i % OUTPUTS]!);
  return { scales, bytes };
}

export function dequantise(scales: readonly number[], bytes: Int8Array): Float32Array {
  const w = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) w[i] = bytes[i]! * scales[i % OUTPUTS]!;
  return w;
}

function fromBase64(text: string): Int8Array {
  const binary = atob(text);
  const bytes = new Int8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = (binary.charCodeAt(i) << 24) >> 24;
  return bytes;
}

export function toBase64(bytes: Int8Array): string {
  let binary = '';
  const u = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < u.length; i += 0x8000) binary += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(binary);
}

let shipped: LinearModel | null = null;

/** The shipped model, decoded on first use (module-level: read-only, safe to share). */
export function shippedModel(): LinearModel {
  if (shipped) return shipped;
  const file = modelFile;
  if (file.dimension !== DIMENSION || file.outputs !== OUTPUTS)
    throw new Error(
      `reading: data/model.json is for ${file.dimension}×${file.outputs}, the code reads ${DIMENSION}×${OUTPUTS}`,
    );
  shipped = new LinearModel(
    dequantise(file.scales, fromBase64(file.weights)),
    Float64Array.from(file.bias),
    file.threshold,
    file.otherThreshold,
  );
  return shipped;
}
