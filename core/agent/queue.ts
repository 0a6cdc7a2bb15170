/**
 * A minimal unbounded async queue, used to merge events from concurrently running tools
 * into one ordered stream.
 *
 * @module
 */

/** Push values from anywhere; consume them with `for await`. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiter: (() => void) | undefined;
  #closed = false;

  /** Adds a value. Ignored after `close()`. */
  push(value: T): void {
    if (this.#closed) return;
    this.#items.push(value);
    this.#wake();
  }

  /** Ends iteration once the buffered values are consumed. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    while (true) {
      if (index < this.#items.length) {
        const value = this.#items[index];
        this.#items[index++] = undefined as T;
        if (index > 1024 && index * 2 > this.#items.length) {
          this.#items.splice(0, index);
          index = 0;
        }
        yield value;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiter = resolve);
    }
  }
}
