import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** browser_action: drives a headless browser one action at a time. Needs the browser feature. */
export const browserAction = defineTool({
  id: "browser_action",
  kind: "browse",
  snippet: "Drive a browser: open a page, click, type, scroll, close.",
  description:
    "Drives a headless browser, one action per call. After each action except close you get a screenshot and " +
    "the new console output. A session starts with launch and ends with close; close it before you finish. " +
    "Click the centre of the element you want, at coordinates read from the latest screenshot. To check a web " +
    "app you are building, start its server first.",
  parameters: {
    action: {
      schema: {
        type: "string",
        enum: ["launch", "click", "type", "scroll_down", "scroll_up", "close"],
        description:
          "launch: open the browser at url. click: click at coordinate. type: type text into the focused " +
          "element. scroll_down, scroll_up: scroll by one screen. close: close the browser.",
      },
      required: true,
      example: "launch",
    },
    url: {
      schema: { type: "string", description: "For launch: the address to open (http://, https:// or file://)." },
      example: "http://localhost:3000",
    },
    coordinate: {
      schema: { type: "string", description: "For click: the point as x,y in pixels of the screenshot." },
    },
    text: {
      schema: { type: "string", description: "For type: the text to type." },
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.features.browser === true,
})
