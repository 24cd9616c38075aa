/**
 * A scripted OpenAI-compatible model server for the tests: it streams canned replies, with tool
 * calls in each syntax a real server may use. The last user message picks the script with
 * `[script:NAME]`; a round that follows tool results plays the script's next step.
 *
 * Usage: node server.mjs [PORT]  (loopback only). GET /requests lists what it was sent.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const FIGURE = readFileSync(join(here, 'figure.svg'), 'utf8');
const BAD_FIGURE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';

const requests = [];

function structuredCall(id, name, args) {
  return {
    tool_calls: [
      { index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }
    ]
  };
}

/** Each script: a list of steps; a step is a list of deltas (strings are content). */
const SCRIPTS = {
  // Chat UX (chat-ux.spec.ts): remote resources pointing at the test's loopback listener, whose
  // port the question names as `leak-port=N`; a long answer; a code block.
  'remote-media': [
    request => {
      const port = /leak-port=(\d+)/.exec(lastUserText(request.messages))?.[1] ?? '9';
      const remote = `http://127.0.0.1:${port}`;
      const reply =
        `Here is the chart ![pixel](${remote}/pixel.png?leak=secret-from-notebook)\n\n` +
        `<video poster="${remote}/poster.png" src="${remote}/video.mp4" autoplay></video>\n\n` +
        `<audio src="${remote}/audio.mp3" autoplay></audio>\n\n` +
        `<span style="background-image: url(${remote}/css.png)">styled</span>\n\n` +
        `<form action="${remote}/form"><button>Go</button></form>\n\n` +
        `<a href="${remote}/page" target="_self">a link</a> and an inline ` +
        '![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=) image.';
      return reply.match(/[\s\S]{1,7}/g);
    }
  ],
  // Issue 32: a relative image (the chat has no folder to resolve it against).
  'relative-image': [['Here: <img src=x> and ![plot](plots/fig.png).']],
  // Issue 32: LM Studio passes on a tool call it could not parse as text; corrected once.
  'lmstudio-bad-call': [
    ['<tool_call>\n["name": "present_svg", function: "svg"]\n</tool_call>'],
    [
      `<tool_call>${JSON.stringify({ name: 'present_svg', arguments: { svg: FIGURE, alt: 'Corrected figure' } })}</tool_call>`
    ],
    ['Corrected.']
  ],
  'llama-cpp-python': [
    [structuredCall('call_lcp', 'present_svg', { svg: FIGURE, alt: 'Pipeline' })],
    ['Shown.']
  ],
  'old-llamacpp': [['Answered without tools.']],
  long: [
    Array.from(
      { length: 90 },
      (_, i) => `Paragraph ${i}: ${'the answer keeps going '.repeat(8)}\n\n`
    )
  ],
  code: [
    ['Try this:\n\n```python\nresult = [n * n for n in range(4)]\nprint(result)\n```\n\nDone.']
  ],
  hello: [['Hello', ' from the', ' **scripted** model.']],
  'notebook-read': [
    ['Let me read the notebook.', structuredCall('call_nb', 'notebook_read', {})],
    ['I read the notebook: ', 'it has cells.']
  ],
  svg: [
    [
      'Here is a diagram.',
      structuredCall('call_svg', 'present_svg', {
        svg: FIGURE,
        alt: 'Three stages: load, fit, plot'
      })
    ],
    ['The figure shows the three stages.']
  ],
  'svg-hermes': [
    [
      'Drawing it.',
      `<tool_call>{"name": "present_svg", "arguments": ${JSON.stringify({ svg: FIGURE, alt: 'Hermes figure' })}}</tool_call>`
    ],
    ['Done.']
  ],
  'svg-dsml': [
    [
      'Drawing it.<｜DSML｜function_calls><｜DSML｜invoke name="present_svg"><｜DSML｜parameter name="svg" string="true">',
      FIGURE,
      '</｜DSML｜parameter><｜DSML｜parameter name="alt" string="true">DSML figure</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>'
    ],
    ['Done.']
  ],
  'svg-glm': [
    [
      'Drawing it.',
      `<tool_call>present_svg\n<arg_key>svg</arg_key>\n<arg_value>${FIGURE}</arg_value>\n<arg_key>alt</arg_key>\n<arg_value>GLM figure</arg_value>\n</tool_call>`
    ],
    ['Done.']
  ],
  'bad-svg': [
    [
      'Trying a figure.',
      structuredCall('call_bad', 'present_svg', { svg: BAD_FIGURE, alt: 'A bad figure' })
    ],
    ['That figure was refused.']
  ],
  mixed: [
    [
      'Two tools.',
      {
        tool_calls: [
          {
            index: 0,
            id: 'call_m1',
            type: 'function',
            function: { name: 'notebook_read', arguments: '{}' }
          },
          {
            index: 1,
            id: 'call_m2',
            type: 'function',
            function: {
              name: 'present_svg',
              arguments: JSON.stringify({ svg: FIGURE, alt: 'Mixed figure' })
            }
          }
        ]
      }
    ],
    ['Both done.']
  ],
  vision: [
    ['Let me find the plot.', structuredCall('call_v0', 'notebook_read', {})],
    request => {
      const address =
        /cell:[\w-]+\/\d+/.exec(lastToolText(request.messages))?.[0] ?? 'cell:missing/0';
      return [
        'Marking it.',
        structuredCall('call_v1', 'vision_mark', {
          image: address,
          marks: [
            { at: '40,40,200,160', caption: 'peak', colour: 'red' },
            { at: '150,100', caption: 'dip', colour: 'cyan' }
          ]
        })
      ];
    },
    ['A close-up.', structuredCall('call_v2', 'vision_show', { at: ['#1'] })],
    ['A sheet.', structuredCall('call_v3', 'vision_show', { at: ['#1', '#2', '100,100'] })],
    ['Marked the peak and the dip.']
  ],
  'vision-file': [
    request => {
      const path = /path=(\S+)/.exec(lastUserText(request.messages))?.[1] ?? 'missing.png';
      return [
        'Marking the file.',
        structuredCall('call_f1', 'vision_mark', {
          image: path,
          marks: [{ at: '20,20,120,90', caption: 'corner', colour: 'yellow' }]
        })
      ];
    },
    ['Marked the corner.']
  ],
  'vision-quiet': [
    request => {
      const path = /path=(\S+)/.exec(lastUserText(request.messages))?.[1] ?? 'missing.png';
      return [
        'Marking without a view.',
        structuredCall('call_q1', 'vision_mark', {
          image: path,
          marks: [{ at: '10,10', caption: 'dot', colour: 'green' }],
          view: 'none'
        })
      ];
    },
    ['Listing.', structuredCall('call_q2', 'vision_list', {})],
    ['One mark.']
  ],
  // Issue 8: llama.cpp without a projector refuses the views (see the handler below); the retry
  // without images gets this script's next step.
  'llamacpp-image-refusal': [
    request => {
      const path = /path=(\S+)/.exec(lastUserText(request.messages))?.[1] ?? 'missing.png';
      return [
        'Marking the file.',
        structuredCall('call_r1', 'vision_mark', {
          image: path,
          marks: [{ at: '20,20,120,90', caption: 'corner', colour: 'yellow' }]
        })
      ];
    },
    ['Marked the corner; ', 'I read the marks as text.']
  ],
  // Issue 10 (kernel-bridge.spec.ts): the chat marks a Vision widget's picture, found by the
  // address notebook_read lists for it, then lists the marks (the person's clicks among them).
  'vision-widget': [
    ['Let me find the picture.', structuredCall('call_w0', 'notebook_read', {})],
    request => {
      const address =
        /marked picture (\S+) \(/.exec(lastToolText(request.messages))?.[1] ?? 'missing';
      return [
        'Marking it.',
        structuredCall('call_w1', 'vision_mark', {
          image: address,
          marks: [{ at: '40,200,120,280', caption: 'from chat', colour: 'red' }]
        })
      ];
    },
    ['Listing.', structuredCall('call_w2', 'vision_list', {})],
    ['Marked the picture.']
  ],
  // Issue 10 (kernel-bridge.spec.ts): the chat marks a Vision widget while its kernel is busy
  // running a cell; the kernel never takes the marks in time, and the tool must say so.
  'vision-widget-busy': [
    ['Let me find the picture.', structuredCall('call_b0', 'notebook_read', {})],
    request => {
      const address =
        /marked picture (\S+) \(/.exec(lastToolText(request.messages))?.[1] ?? 'missing';
      return [
        'Marking it.',
        structuredCall('call_b1', 'vision_mark', {
          image: address,
          marks: [{ at: '200,150', caption: 'while busy', colour: 'red' }]
        })
      ];
    },
    ['The kernel did not take the mark.']
  ],
  // Issue 31 (labelling-chat.spec.ts): "pre-label every picture" of a 5-picture VisionSet in one
  // question: notebook_read lists the set's addresses, then one vision_mark per picture, each a
  // labelled box and a labelled polygon (the second picture also gets its view drawn).
  'vision-set': [
    ['Let me find the set.', structuredCall('call_s0', 'notebook_read', {})],
    request => {
      const addresses = setAddresses(lastToolText(request.messages));
      return [
        `Labelling ${addresses.length} pictures.`,
        {
          tool_calls: addresses.map((address, index) => ({
            index,
            id: `call_s${index + 1}`,
            type: 'function',
            function: {
              name: 'vision_mark',
              arguments: JSON.stringify({
                image: address,
                marks: [
                  { at: `${40 + index},40,160,120`, label: 'cat', caption: `cat ${index}` },
                  { at: '200,50,320,60,260,180', label: 'dog', caption: `dog ${index}` }
                ],
                ...(index === 1 ? {} : { view: 'none' })
              })
            }
          }))
        }
      ];
    },
    ['Labelled the set.']
  ],
  // Issue 31: after the person's corrections, the model reads the set again and lists the first
  // two pictures' marks.
  'vision-set-review': [
    ['Reading the set again.', structuredCall('call_r0', 'notebook_read', {})],
    request => {
      const addresses = setAddresses(lastToolText(request.messages)).slice(0, 2);
      return [
        'Listing the first two.',
        {
          tool_calls: addresses.map((address, index) => ({
            index,
            id: `call_r${index + 1}`,
            type: 'function',
            function: { name: 'vision_list', arguments: JSON.stringify({ image: address }) }
          }))
        }
      ];
    },
    ['I see your corrections.']
  ],
  // Issue 8: reasoning left in the content as <think> text (Ollama before 0.12.4, vLLM without a
  // reasoning parser), split across deltas the way those servers stream it.
  think: [
    [
      '<think>',
      '\nThe user wants',
      ' a greeting.\n</thi',
      'nk>\n\n',
      'Hello from a thinking model.'
    ]
  ],
  // Issue 8: a model without tool support (the handler below refuses requests with tools).
  'no-tools': [['Answered without tools.']],
  'truncated-call': [
    [
      'Calling.',
      {
        tool_calls: [
          {
            index: 0,
            id: 'call_t',
            type: 'function',
            function: { name: 'present_svg', arguments: '{"svg": "<svg' }
          }
        ]
      }
    ]
  ]
};

function lastUserText(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user' && typeof m.content === 'string') {
      return m.content;
    }
  }
  return '';
}

function lastToolText(messages) {
  const tools = messages.filter(m => m.role === 'tool');
  return tools.length ? String(tools[tools.length - 1].content) : '';
}

/** The picture addresses notebook_read lists under a VisionSet (see src/chat/tools/notebook-read.ts). */
function setAddresses(text) {
  const after = text.split(/a VisionSet of \d+ pictures/)[1] ?? '';
  return [...after.matchAll(/^ {6}(\S+) \(/gm)].map(match => match[1]);
}

function roundOf(messages) {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && typeof m.content === 'string') last = i;
  });
  return messages.slice(last + 1).filter(m => m.role === 'assistant').length;
}

const sleep = ms => new Promise(done => setTimeout(done, ms));

async function stream(res, deltas, delay) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
  for (const delta of deltas) {
    const d = typeof delta === 'string' ? { content: delta } : delta;
    res.write(
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: null }] })}\n\n`
    );
    await sleep(delay);
  }
  const reason = deltas.some(d => typeof d === 'object' && d.tool_calls) ? 'tool_calls' : 'stop';
  res.write(
    `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`
  );
  res.end('data: [DONE]\n\n');
}

const server = createServer(async (req, res) => {
  if (req.method === 'GET' && req.url === '/requests') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(requests));
    return;
  }
  if (req.method === 'DELETE' && req.url === '/requests') {
    requests.length = 0;
    res.end('{}');
    return;
  }
  let body = '';
  for await (const chunk of req) body += chunk;
  if (!req.url.endsWith('/chat/completions')) {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
    return;
  }
  const request = JSON.parse(body);
  requests.push(request);
  const text = lastUserText(request.messages);
  const name = /\[script:([\w-]+)\]/.exec(text)?.[1] ?? 'hello';
  if (name === 'error500') {
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'model exploded' } }));
    return;
  }
  // Issue 8: llama.cpp's llama-server refuses image parts without a projector, with a 500.
  if (name === 'llamacpp-image-refusal' && body.includes('"image_url"')) {
    res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(
      '{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}'
    );
    return;
  }
  // Issue 32: llama-cpp-python's server passes a pydantic validation error on as a 500 whose
  // message is the whole dump (here: to an assistant message whose content is not a string, as
  // llama_cpp.server 0.3.x does; `pydantic-dump` answers it to any request).
  const nullContent = request.messages.some(
    message => message.role === 'assistant' && typeof message.content !== 'string'
  );
  if (name === 'pydantic-dump' || (name === 'llama-cpp-python' && nullContent)) {
    const items = ['System', 'User', 'Assistant', 'Tool', 'Function', 'Developer', 'Assistant'];
    const dump = [
      `${items.length} validation errors for ChatCompletionRequestAssistantMessage`,
      ...items.flatMap(kind => [
        `messages.2.ChatCompletionRequest${kind}Message.content`,
        '  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]',
        '    For further information visit https://errors.pydantic.dev/2.11/v/string_type'
      ])
    ].join('\n');
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        error: { message: dump, type: 'internal_server_error', param: null, code: null }
      })
    );
    return;
  }
  // Issue 32: llama.cpp's llama-server before streamed tool calls refused tools with stream.
  if (name === 'old-llamacpp' && request.tools && request.stream) {
    res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(
      '{"error":{"code":500,"message":"Cannot use tools with stream.","type":"server_error"}}'
    );
    return;
  }
  // Issue 8: Ollama refuses `tools` for a model without tool support, with a 400.
  if (name === 'no-tools' && request.tools) {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(
      '{"error":{"message":"registry.ollama.ai/library/gemma3:4b does not support tools","type":"api_error","param":null,"code":null}}\n'
    );
    return;
  }
  if (name === 'slow') {
    // Streams until the client goes away, bounded to two minutes.
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    // When the connection was dropped before the answer ended (GET /requests shows it).
    res.on('close', () => {
      if (!res.writableEnded) request.closedAt = Date.now();
    });
    let open = true;
    req.on('close', () => (open = false));
    res.on('close', () => (open = false));
    for (let i = 0; open && i < 1200; i++) {
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `word${i} ` } }] })}\n\n`
      );
      await sleep(100);
    }
    res.end();
    return;
  }
  // Issue 11: a ~3 KB present_svg call written slowly (60-character deltas, 150 ms apart), as a
  // structured call (`svg-slow`) or as text (`svg-slow-hermes`, `-dsml`, `-glm`), so the card of
  // the call being written can be watched growing.
  if (/^svg-slow(-hermes|-dsml|-glm)?$/.test(name) && roundOf(request.messages) === 0) {
    const circles = Array.from(
      { length: 60 },
      (_, i) =>
        `<circle cx="${20 + (i % 12) * 28}" cy="${20 + Math.floor(i / 12) * 40}" r="9" fill="#4a7"/>`
    ).join('\n');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="220" viewBox="0 0 360 220">\n<title>Slow dots</title>\n${circles}\n</svg>`;
    const alt = 'Sixty dots, written slowly';
    const args = JSON.stringify({ svg, alt });
    const parts = args.match(/[\s\S]{1,60}/g);
    const svgParts = svg.match(/[\s\S]{1,60}/g);
    const text = {
      'svg-slow-dsml': [
        '<｜DSML｜function_calls><｜DSML｜invoke name="present_svg"><｜DSML｜parameter name="svg" string="true">',
        ...svgParts,
        `</｜DSML｜parameter><｜DSML｜parameter name="alt" string="true">${alt}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`
      ],
      'svg-slow-glm': [
        '<tool_call>present_svg\n<arg_key>svg</arg_key>\n<arg_value>',
        ...svgParts,
        `</arg_value>\n<arg_key>alt</arg_key>\n<arg_value>${alt}</arg_value>\n</tool_call>`
      ]
    }[name];
    const deltas = text
      ? ['Drawing sixty dots.', ...text]
      : name === 'svg-slow'
        ? [
            'Drawing sixty dots.',
            {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_slow',
                  type: 'function',
                  function: { name: 'present_svg', arguments: '' }
                }
              ]
            },
            ...parts.map(part => ({ tool_calls: [{ index: 0, function: { arguments: part } }] }))
          ]
        : [
            'Drawing sixty dots.',
            '<tool_call>{"name": "present_svg", "arguments": ',
            ...parts,
            '}</tool_call>'
          ];
    await stream(res, deltas, 150);
    return;
  }
  if (name === 'svg-stall') {
    // A call that starts and never finishes: the stream stays open after the first parts of a
    // present_svg call until the client closes it, so Stop always lands while the call is being
    // written, however loaded the machine (svg-slow's whole call could arrive before a late Stop).
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    let open = true;
    res.on('close', () => (open = false));
    const chunk = delta =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    res.write(chunk({ content: 'Drawing sixty dots.' }));
    res.write(
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'call_stall',
            type: 'function',
            function: { name: 'present_svg', arguments: '' }
          }
        ]
      })
    );
    const partial =
      '{"alt": "Never finished", "svg": "<svg xmlns=\\"http://www.w3.org/2000/svg\\" width=\\"10\\"';
    for (const part of partial.match(/[\s\S]{1,20}/g)) {
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    }
    for (let waited = 0; open && waited < 120000; waited += 100) await sleep(100);
    if (open) res.end();
    return;
  }
  if (name === 'stream-2mb') {
    // The browser benchmark (bench/stream-scroll.spec.ts): a 2 MB Markdown answer, one character
    // per SSE event. Events are written in batches (one TCP write each, waiting for the socket to
    // drain) so the chat receives many tiny deltas without a timer per character.
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    let open = true;
    res.on('close', () => (open = false));
    const paragraph = i =>
      i % 10 === 9
        ? `\`\`\`python\nvalue_${i} = [n * n for n in range(${i})]\nprint(value_${i})\n\`\`\`\n\n`
        : i % 10 === 4
          ? `- item ${i} with **bold** text\n- and a second item\n- and a third, longer one\n\n`
          : `Paragraph ${i}: ${'the streamed answer keeps going, '.repeat(6)}\n\n`;
    let text = '';
    for (let i = 0; text.length < 2 * 1024 * 1024; i++) text += paragraph(i);
    const event = c =>
      `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(c)}}}]}\n\n`;
    for (let at = 0; open && at < text.length; at += 2048) {
      const batch = Array.from(text.slice(at, at + 2048), event).join('');
      if (!res.write(batch)) await new Promise(done => res.once('drain', done));
    }
    if (open) {
      res.write('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n');
      res.end('data: [DONE]\n\n');
    }
    return;
  }
  if (name === 'cut') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Partial answer before the cut' } }] })}\n\n`
    );
    res.destroy();
    return;
  }
  const steps = SCRIPTS[name] ?? SCRIPTS.hello;
  const round = roundOf(request.messages);
  const step = steps[Math.min(round, steps.length - 1)];
  await stream(res, typeof step === 'function' ? step(request) : step, 30);
});

const port = Number(process.argv[2] ?? 8765);
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`scripted model server on http://127.0.0.1:${port}/v1\n`);
});
