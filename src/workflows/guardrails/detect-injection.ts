import type { Detection } from './finding.js';
import { foldText, originalSpan } from './fold-text.js';
import { InputReasonCodes } from './reason-codes.js';

interface MarkerRule {
  readonly ruleId: string;
  readonly code: Detection['code'];
  readonly pattern: RegExp;
}

const OVERRIDE_VERB = '(?:ignore|disregard|forget|override|bypass|skip)';
const PRIOR = '(?:previous|prior|above|earlier|preceding|former|original|all|any|your|the|system)';
const RULES_NOUN = '(?:instructions?|prompts?|rules?|directions?|guidelines?|directives?|constraints?)';

/**
 * Marker rules, matched on the folded text (lower-case, NFKC, invisible characters removed).
 * English and Chinese. A marker is evidence of an attempt, not proof: the default action is `flag`.
 *
 * Linear time: no rule has two adjacent quantifiers over the same characters; an open-ended run
 * (`\s+`) follows a literal, so only the start before it reads it; windows are bounded (`{0,80}`);
 * and where later starts would read again what an earlier start read to its end (line breaks in a
 * whitespace run, names in a dotted chain), a lookbehind skips them.
 */
const MARKER_RULES: readonly MarkerRule[] = [
  {
    ruleId: 'injection.ignore_previous.en',
    code: InputReasonCodes.injectionMarker,
    pattern: new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:${PRIOR}\\s+){1,3}${RULES_NOUN}\\b`, 'g'),
  },
  {
    ruleId: 'injection.ignore_previous.zh',
    code: InputReasonCodes.injectionMarker,
    pattern:
      /(?:忽略|无视|忽视|忘记|忘掉|不要理会|跳过)(?:掉)?(?:你)?(?:之前|以上|上面|上述|先前|前面|此前|原来|原有|所有|全部|一切)?(?:的|所有的|全部的)?(?:所有|全部)?(?:指令|指示|规则|提示词?|设定|要求|约束|限制)/g,
  },
  {
    ruleId: 'injection.system_prompt.en',
    code: InputReasonCodes.injectionMarker,
    pattern:
      /\b(?:system\s+prompt|system\s+message|developer\s+(?:message|mode|instructions?)|hidden\s+instructions?|initial\s+instructions?|(?:reveal|print|show|repeat)\s+(?:your|the)\s+(?:prompt|instructions))\b/g,
  },
  {
    ruleId: 'injection.system_prompt.zh',
    code: InputReasonCodes.injectionMarker,
    pattern:
      /系统提示词?|系统指令|系统消息|开发者模式|(?:输出|显示|泄露|告诉我)(?:你的)?(?:提示词|初始指令)/g,
  },
  {
    // `on(?:\s*,)?\s+you`, not `on\s*,?\s+you`: two adjacent whitespace quantifiers try every split
    // of a long whitespace run (O(n²)); the comma now separates them.
    ruleId: 'injection.new_instructions',
    code: InputReasonCodes.injectionMarker,
    pattern:
      /\b(?:new|updated|real)\s+instructions?\s*:|\bfrom\s+now\s+on(?:\s*,)?\s+you\b|(?:新的指令|新指令)\s*[:：]|从现在(?:开始|起)[，,]?\s*你/g,
  },
  {
    // Only the first line break of a whitespace run starts a match (`\n\n\n…` would otherwise read
    // the run to its end from every break); the leftmost match starts there anyway.
    ruleId: 'injection.role_marker',
    code: InputReasonCodes.injectionMarker,
    pattern:
      /(?:^|(?<!\n[^\S\n]*)\n)\s*(?:system|assistant|developer)\s*:|<\|(?:im_start|im_end|system|assistant|endoftext)\|>|\[\/?inst\]|<<\/?sys>>/g,
  },
  {
    ruleId: 'jailbreak.role_play.en',
    code: InputReasonCodes.jailbreakRolePlay,
    pattern:
      /\b(?:you\s+are(?:\s+now)?|act\s+as|pretend\s+(?:to\s+be|you\s+are)|role-?play\s+as|imagine\s+you\s+are)\b[^.!?\n]{0,80}?\b(?:dan|unrestricted|jailbroken|unfiltered|uncensored|evil|no\s+(?:rules|restrictions|limits|filters|guidelines)|without\s+(?:any\s+)?(?:rules|restrictions|limits|filters|guidelines))\b/g,
  },
  {
    ruleId: 'jailbreak.named.en',
    code: InputReasonCodes.jailbreakRolePlay,
    pattern: /\b(?:do\s+anything\s+now|jailbreak(?:ed)?|dan\s+mode)\b/g,
  },
  {
    ruleId: 'jailbreak.role_play.zh',
    code: InputReasonCodes.jailbreakRolePlay,
    pattern:
      /(?:扮演|假装(?:你是)?|你现在是|现在你是|充当)[^。！？\n]{0,40}?(?:没有(?:任何)?(?:限制|规则|约束)|不受(?:任何)?(?:限制|约束)|无限制|越狱|dan)|越狱模式/g,
  },
  {
    // A name right after `name.` is part of a chain an earlier start already read to its end (the
    // same end, fewer names): skipped, so `a.a.a.a…` is read once, not from every name.
    ruleId: 'tool_call.dotted_call',
    code: InputReasonCodes.toolCallImitation,
    pattern: /(?<!\b[a-z][a-z0-9_]*\.)\b[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\(/g,
  },
  {
    ruleId: 'tool_call.json_envelope',
    code: InputReasonCodes.toolCallImitation,
    pattern:
      /"(?:tool_calls?|function_call|tool_use|tool_name)"\s*:|<\/?(?:tool_call|tool_use|function_calls?|invoke)\b/g,
  },
];

/**
 * Find prompt-injection, jailbreak and tool-call-imitation markers in `text`. Spans point into the
 * original string. Pure and linear in the length of `text`; never throws.
 */
export function* detectInjection(text: string): Generator<Detection> {
  const folded = foldText(text);
  for (const rule of MARKER_RULES) {
    for (const m of folded.text.matchAll(rule.pattern)) {
      const start = m.index;
      yield { code: rule.code, ruleId: rule.ruleId, span: originalSpan(folded, start, start + m[0].length) };
    }
  }
}
