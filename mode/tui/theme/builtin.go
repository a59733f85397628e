package theme

// darkJSON and lightJSON are the built-in palettes (tui.md §5.1 table, the values pi and Atomic
// ship for every required token).
const darkJSON = `{
  "name": "dark",
  "vars": {"cyan": "#8abeb7", "gray": "#808080", "green": "#b5bd68", "red": "#cc6666", "blue": "#81a2be", "dimGray": "#666666"},
  "colors": {
    "accent": "cyan", "border": "#5f87ff", "borderAccent": "#00d7ff", "borderMuted": "#505050",
    "success": "green", "error": "red", "warning": "#ffff00", "muted": "gray", "dim": "dimGray",
    "text": "", "thinkingText": "gray", "selectedBg": "#3a3a4a", "userMessageBg": "#343541",
    "userMessageText": "", "customMessageBg": "#2d2838", "customMessageText": "", "customMessageLabel": "#9575cd",
    "toolPendingBg": "#282832", "toolSuccessBg": "#283228", "toolErrorBg": "#3c2828", "toolTitle": "",
    "toolOutput": "gray", "mdHeading": "#f0c674", "mdLink": "blue", "mdLinkUrl": "dimGray", "mdCode": "cyan",
    "mdCodeBlock": "green", "mdCodeBlockBorder": "gray", "mdQuote": "gray", "mdQuoteBorder": "gray",
    "mdHr": "gray", "mdListBullet": "cyan", "toolDiffAdded": "green", "toolDiffRemoved": "red",
    "toolDiffContext": "gray", "syntaxComment": "#6a9955", "syntaxKeyword": "#569cd6",
    "syntaxFunction": "#dcdcaa", "syntaxVariable": "#9cdcfe", "syntaxString": "#ce9178",
    "syntaxNumber": "#b5cea8", "syntaxType": "#4ec9b0", "syntaxOperator": "#d4d4d4",
    "syntaxPunctuation": "#d4d4d4", "thinkingOff": "#505050", "thinkingMinimal": "#6e6e6e",
    "thinkingLow": "#5f87af", "thinkingMedium": "#81a2be", "thinkingHigh": "#b294bb",
    "thinkingXhigh": "#d183e8", "bashMode": "green"
  }
}`

const lightJSON = `{
  "name": "light",
  "vars": {"teal": "#5a8080", "gray": "#6c6c6c", "green": "#588458", "red": "#aa5555", "blue": "#547da7", "dimGray": "#767676"},
  "colors": {
    "accent": "teal", "border": "blue", "borderAccent": "teal", "borderMuted": "#b0b0b0",
    "success": "green", "error": "red", "warning": "#9a7326", "muted": "gray", "dim": "dimGray",
    "text": "", "thinkingText": "gray", "selectedBg": "#d0d0e0", "userMessageBg": "#e8e8e8",
    "userMessageText": "", "customMessageBg": "#ede7f6", "customMessageText": "", "customMessageLabel": "#7e57c2",
    "toolPendingBg": "#e8e8f0", "toolSuccessBg": "#e8f0e8", "toolErrorBg": "#f0e8e8", "toolTitle": "",
    "toolOutput": "gray", "mdHeading": "#9a7326", "mdLink": "blue", "mdLinkUrl": "dimGray", "mdCode": "teal",
    "mdCodeBlock": "green", "mdCodeBlockBorder": "gray", "mdQuote": "gray", "mdQuoteBorder": "gray",
    "mdHr": "gray", "mdListBullet": "green", "toolDiffAdded": "green", "toolDiffRemoved": "red",
    "toolDiffContext": "gray", "syntaxComment": "#008000", "syntaxKeyword": "#0000ff",
    "syntaxFunction": "#795e26", "syntaxVariable": "#001080", "syntaxString": "#a31515",
    "syntaxNumber": "#098658", "syntaxType": "#267f99", "syntaxOperator": "#000000",
    "syntaxPunctuation": "#000000", "thinkingOff": "#b0b0b0", "thinkingMinimal": "#767676",
    "thinkingLow": "blue", "thinkingMedium": "teal", "thinkingHigh": "#875f87",
    "thinkingXhigh": "#8b008b", "bashMode": "green"
  }
}`
