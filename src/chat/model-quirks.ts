/**
 * What the chat learned about a model by talking to it: it refused images, a temperature, or
 * tools. Kept per endpoint and model, so a refusal by one model never holds back another one
 * picked later; owned by the session, so it lasts across New (the same model still refuses).
 */

/** What one model (at one endpoint) was found to refuse. */
export interface ModelQuirks {
  imagesRefused: boolean;
  /** Whether the server was asked once whether the model takes images (`model-info`). */
  imagesChecked: boolean;
  temperatureRefused: boolean;
  toolsRefused: boolean;
  /**
   * The field the server streams reasoning in (`reasoning_content` or `reasoning`), once seen:
   * the one it reads back in the tool rounds of a turn.
   */
  reasoningField?: 'reasoning_content' | 'reasoning';
}

/** Quirks by endpoint + model. */
export class ModelQuirkMemory {
  private readonly _byModel = new Map<string, ModelQuirks>();

  /** The quirks of a model (created empty on first use). */
  of(endpoint: string, model: string): ModelQuirks {
    const key = `${endpoint.replace(/\/+$/, '')}\n${model}`;
    let quirks = this._byModel.get(key);
    if (!quirks) {
      quirks = {
        imagesRefused: false,
        imagesChecked: false,
        temperatureRefused: false,
        toolsRefused: false
      };
      this._byModel.set(key, quirks);
    }
    return quirks;
  }
}
