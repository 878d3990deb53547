/** The `stopword` package ships no types: its per-language lists are plain word arrays. */
declare module 'stopword' {
  export const eng: string[];
  export const deu: string[];
  export const fra: string[];
  export const spa: string[];
  export const por: string[];
  export const ita: string[];
  export const nld: string[];
  export const rus: string[];
  export const ukr: string[];
  export const ara: string[];
}
